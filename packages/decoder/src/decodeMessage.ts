import { bytesToHex, type Hex, hexToBytes, isHex } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { reasonOf } from "./decodeAuthorization";
import { toAddress } from "./format";
import type { Decoded } from "./types";

/** A message to sign: text, or raw bytes (`personal_sign` of bytes). */
export type DecodeMessageParameters = string | { raw: Hex | Uint8Array };

export type DecodeMessageReturnType = Extract<Decoded, { kind: "siwe" | "message" | "unreadable" }>;

/**
 * A message to sign: a Sign-In with Ethereum (EIP-4361) message read by viem's `parseSiweMessage` —
 * the site, the account, the chain, the statement and the expiry — or else the plain text. Raw bytes
 * that are not UTF-8 are shown as hex. Never throws.
 *
 * @example
 * decodeMessage(createSiweMessage({ domain: "example.com", address, uri: "https://example.com", chainId: 1, nonce, version: "1" }));
 * // → { kind: "siwe", domain: "example.com", address, chainId: 1, … }
 */
export function decodeMessage(message: DecodeMessageParameters): DecodeMessageReturnType {
  try {
    const text = textOf(message);
    const siwe = readSiwe(text);
    return siwe ?? { kind: "message", text, warnings: [] };
  } catch (e) {
    return { kind: "unreadable", reason: "malformedMessage", detail: reasonOf(e), warnings: [] };
  }
}

function textOf(message: DecodeMessageParameters): string {
  if (typeof message === "string") return message;
  if (typeof message !== "object" || message === null) throw new Error("not a message");
  const raw = message.raw;
  if (typeof raw === "string" && !isHex(raw, { strict: true })) throw new Error("raw is not hex");
  const bytes = typeof raw === "string" ? hexToBytes(raw) : raw;
  if (!(bytes instanceof Uint8Array)) throw new Error("raw is not bytes");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return bytesToHex(bytes);
  }
}

function readSiwe(text: string): Extract<Decoded, { kind: "siwe" }> | undefined {
  // EIP-4361's first line; parseSiweMessage reads any text, so a message is SIWE only with every required field.
  if (text.length > 65_536 || !/ wants you to sign in with your Ethereum account:\n/.test(text))
    return undefined;
  const m = parseSiweMessage(text);
  if (!m.domain || !m.address || !m.uri || !m.version || m.chainId === undefined || !m.nonce)
    return undefined;
  const siwe: Extract<Decoded, { kind: "siwe" }> = {
    kind: "siwe",
    domain: m.domain,
    address: toAddress(m.address),
    uri: m.uri,
    chainId: m.chainId,
    nonce: m.nonce,
    warnings: [],
  };
  if (m.statement) siwe.statement = m.statement;
  // viem answers an invalid date as an Invalid Date: left out.
  if (m.issuedAt && !Number.isNaN(m.issuedAt.getTime())) siwe.issuedAt = m.issuedAt;
  if (m.expirationTime && !Number.isNaN(m.expirationTime.getTime())) siwe.expirationTime = m.expirationTime;
  return siwe;
}
