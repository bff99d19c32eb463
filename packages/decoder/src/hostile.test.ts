/**
 * Hostile input: random and mutated bytes through every decoder, then summarize. Nothing throws; what
 * cannot be read is `unreadable`. Seeded, so a failure reproduces.
 */
import { bytesToHex, encodeFunctionData, erc20Abi, getAddress, type Hex, maxUint256 } from "viem";
import { describe, expect, it } from "vitest";
import { accountCallsAbi } from "./abis";
import { decodeMessage } from "./decodeMessage";
import { decodeSolanaTransaction } from "./decodeSolanaTransaction";
import { decodeTransaction } from "./decodeTransaction";
import { decodeTypedData } from "./decodeTypedData";
import { decodeUserOperation } from "./decodeUserOperation";
import { summarize } from "./summarize";
import type { Decoded } from "./types";

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const ALICE = getAddress("0xa11ce00000000000000000000000000000000001");
const TOKEN = getAddress("0x70ce000000000000000000000000000000000004");
const batch = encodeFunctionData({
  abi: accountCallsAbi,
  functionName: "executeBatch",
  args: [
    [
      {
        target: TOKEN,
        value: 0n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [ALICE, maxUint256] }),
      },
      { target: ALICE, value: 1n, data: "0x" },
    ],
  ],
});

/** `bytes` with a few bytes changed, cut or doubled. */
function mutate(next: () => number, bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  const kind = Math.floor(next() * 3);
  if (kind === 0) for (let i = 0; i < 3; i++) out[Math.floor(next() * out.length)] = Math.floor(next() * 256);
  if (kind === 1) return out.slice(0, Math.floor(next() * out.length));
  if (kind === 2) return Uint8Array.from([...out, ...out.slice(0, Math.floor(next() * out.length))]);
  return out;
}
const hexBytes = (hex: Hex) =>
  Uint8Array.from(hex.slice(2).match(/../g) ?? [], (b) => Number.parseInt(b, 16));
const readable = (d: Decoded) => {
  expect(() => summarize(d)).not.toThrow();
  return d.kind;
};

describe("hostile input", () => {
  it("mutated executeBatch call data: a user operation or unreadable, never a throw", async () => {
    const next = random(1);
    for (let i = 0; i < 300; i++) {
      const callData = bytesToHex(mutate(next, hexBytes(batch)));
      const decoded = await decodeUserOperation({ chainId: 1, sender: ALICE, callData });
      expect(["userOperation"]).toContain(readable(decoded));
      const tx = await decodeTransaction({ chainId: 1, from: ALICE, to: TOKEN, data: callData });
      expect(["transaction"]).toContain(readable(tx));
    }
  });

  it("random bytes as a Solana transaction", () => {
    const next = random(2);
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(next() * 400) }, () => Math.floor(next() * 256));
      expect(["solanaTransaction", "unreadable"]).toContain(readable(decodeSolanaTransaction(bytes)));
    }
  });

  it("typed data with fields of every wrong type", async () => {
    const junk: unknown[] = [
      null,
      undefined,
      1.5,
      -1,
      "x",
      "0x",
      {},
      [],
      [1],
      true,
      2n ** 300n,
      { toString: 1 },
    ];
    const next = random(3);
    const pick = () => junk[Math.floor(next() * junk.length)];
    for (let i = 0; i < 300; i++) {
      const typedData = {
        domain: { name: pick(), chainId: pick(), verifyingContract: pick() },
        types: {
          Permit: [
            { name: "owner", type: "address" },
            { name: "spender", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
        },
        primaryType: next() < 0.9 ? "Permit" : pick(),
        message: {
          owner: pick(),
          spender: next() < 0.5 ? ALICE : pick(),
          value: pick(),
          nonce: pick(),
          deadline: pick(),
        },
      };
      expect(["typedData", "unreadable"]).toContain(readable(await decodeTypedData(typedData as never)));
    }
  });

  it("messages of any bytes", () => {
    const next = random(4);
    for (let i = 0; i < 200; i++) {
      const raw = Uint8Array.from({ length: Math.floor(next() * 100) }, () => Math.floor(next() * 256));
      expect(["message", "siwe"]).toContain(readable(decodeMessage({ raw })));
    }
  });
});
