import { getAddress, zeroAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { decodeAuthorization } from "./decodeAuthorization";

const SIMPLE_7702 = getAddress("0xe6cae83bde06e4c305530e199d7217f42808555b");
const DRAINER = getAddress("0xd7a1000000000000000000000000000000000666");

describe("decodeAuthorization", async () => {
  const account = privateKeyToAccount(`0x${"33".repeat(32)}`);
  const signed = await account.signAuthorization({ address: SIMPLE_7702, chainId: 8453, nonce: 7 });

  it("a signed authorization of viem, delegate named by the allow list", () => {
    expect(
      decodeAuthorization(signed, {
        allowedDelegates: [{ address: SIMPLE_7702, name: "Simple7702Account" }],
      }),
    ).toEqual({
      kind: "authorization",
      chainId: 8453,
      delegate: SIMPLE_7702,
      delegateName: "Simple7702Account",
      nonce: 7n,
      revoke: false,
      warnings: [],
    });
  });

  it("a delegate not in the allow list is flagged; no list, no flag", () => {
    const authorization = { chainId: 0, address: DRAINER.toLowerCase(), nonce: 0 };
    expect(decodeAuthorization(authorization, { allowedDelegates: [SIMPLE_7702] })).toMatchObject({
      chainId: 0,
      delegate: DRAINER,
      warnings: [{ kind: "delegationNotAllowed", delegate: DRAINER }],
    });
    expect(decodeAuthorization(authorization).warnings).toEqual([]);
  });

  it("delegating to the zero address revokes, and is never flagged", () => {
    expect(
      decodeAuthorization({ chainId: 1, address: zeroAddress, nonce: 1n }, { allowedDelegates: [] }),
    ).toMatchObject({
      revoke: true,
      warnings: [],
    });
  });

  it.each([
    ["a short address", { chainId: 1, address: "0x1234", nonce: 0 }],
    ["a negative chain id", { chainId: -1, address: SIMPLE_7702, nonce: 0 }],
    ["a nonce that is a word", { chainId: 1, address: SIMPLE_7702, nonce: "next" }],
    ["nothing", undefined],
  ])("never throws: %s is unreadable", (_, authorization) => {
    expect(decodeAuthorization(authorization as never)).toMatchObject({
      kind: "unreadable",
      reason: "malformedAuthorization",
    });
  });
});
