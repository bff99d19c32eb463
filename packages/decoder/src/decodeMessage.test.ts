import { getAddress, stringToHex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { decodeMessage } from "./decodeMessage";

const ADDRESS = getAddress("0xa11ce00000000000000000000000000000000001");

describe("decodeMessage", () => {
  const siwe = createSiweMessage({
    domain: "shop.example.com",
    address: ADDRESS,
    statement: "Sign in to the shop.",
    uri: "https://shop.example.com/login",
    version: "1",
    chainId: 8453,
    nonce: "abcdef123456",
    issuedAt: new Date("2026-12-07T10:00:00Z"),
    expirationTime: new Date("2026-12-07T11:00:00Z"),
  });

  it("a SIWE message made by viem's createSiweMessage", () => {
    expect(decodeMessage(siwe)).toEqual({
      kind: "siwe",
      domain: "shop.example.com",
      address: ADDRESS,
      uri: "https://shop.example.com/login",
      chainId: 8453,
      statement: "Sign in to the shop.",
      nonce: "abcdef123456",
      issuedAt: new Date("2026-12-07T10:00:00Z"),
      expirationTime: new Date("2026-12-07T11:00:00Z"),
      warnings: [],
    });
  });

  it("the same message as raw bytes", () => {
    expect(decodeMessage({ raw: stringToHex(siwe) })).toMatchObject({
      kind: "siwe",
      domain: "shop.example.com",
    });
  });

  it("a SIWE-looking message without a nonce is a plain message", () => {
    const text = siwe.replace(/\nNonce: .*/, "");
    expect(decodeMessage(text)).toEqual({ kind: "message", text, warnings: [] });
  });

  it("an invalid expiry is left out", () => {
    const decoded = decodeMessage(siwe.replace("2026-12-07T11:00:00.000Z", "tomorrow"));
    expect(decoded).toMatchObject({ kind: "siwe" });
    expect(decoded).not.toHaveProperty("expirationTime");
  });

  it("plain text; raw bytes that are not UTF-8 stay hex", () => {
    expect(decodeMessage("hello")).toEqual({ kind: "message", text: "hello", warnings: [] });
    expect(decodeMessage({ raw: new Uint8Array([0xff, 0xfe, 0x00]) })).toEqual({
      kind: "message",
      text: "0xfffe00",
      warnings: [],
    });
  });

  it.each([
    ["raw that is not hex", { raw: "hello" }],
    ["a number", 42],
    ["null", null],
    ["raw that is a number", { raw: 1 }],
  ])("never throws: %s is unreadable", (_, message) => {
    expect(decodeMessage(message as never)).toMatchObject({ kind: "unreadable", reason: "malformedMessage" });
  });
});
