import { describe, expect, it } from "vitest";
import { deriveAccounts, newMnemonic } from "./wallet";
import { WalletDeriver } from "./walletPool";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("WalletDeriver", () => {
  it("derives in worker threads exactly what the event loop derives", async () => {
    const pool = new WalletDeriver(2);
    try {
      const results = await Promise.all(Array.from({ length: 6 }, () => pool.derive(ABANDON)));
      const expected = deriveAccounts(ABANDON);
      for (const accounts of results) {
        expect(accounts.map((a) => a.address)).toEqual(expected.map((a) => a.address));
        expect(Buffer.from(accounts[0]?.privateKey as Uint8Array).toString("hex")).toBe(
          Buffer.from(expected[0]?.privateKey as Uint8Array).toString("hex"),
        );
      }
    } finally {
      await pool.close();
    }
  });

  it("answers each of 45 wallets asked at once with its own accounts (derived in batches)", async () => {
    // One worker: the wallets queue while it works and go to the native PBKDF2 several at a time
    // (up to 32 per pass, 8 per vector run), so a mix-up between lanes or jobs would show here.
    const pool = new WalletDeriver(1);
    try {
      const mnemonics = Array.from({ length: 45 }, () => newMnemonic());
      const results = await Promise.all(mnemonics.map((m) => pool.derive(m)));
      results.forEach((accounts, i) => {
        const expected = deriveAccounts(mnemonics[i] as string);
        expect(accounts.map((a) => a.address)).toEqual(expected.map((a) => a.address));
        expect(accounts.map((a) => Buffer.from(a.privateKey).toString("hex"))).toEqual(
          expected.map((a) => Buffer.from(a.privateKey).toString("hex")),
        );
      });
      expect(new Set(results.map((a) => a[0]?.address)).size).toBe(45);
    } finally {
      await pool.close();
    }
  });

  it("derives on the event loop when its workers fail", async () => {
    const pool = new WalletDeriver(1, new URL("./no-such-worker.mjs", import.meta.url));
    try {
      const results = await Promise.all([pool.derive(ABANDON), pool.derive(ABANDON)]);
      for (const [evm] of results) expect(evm?.address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
      // Once workers keep failing, the pool stops trying and derives in-thread.
      for (let i = 0; i < 8; i++) await pool.derive(ABANDON);
      const [evm] = await pool.derive(ABANDON);
      expect(evm?.address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
    } finally {
      await pool.close();
    }
  });

  it("derives on the event loop when it has no workers", async () => {
    const pool = new WalletDeriver(0);
    const [evm] = await pool.derive(ABANDON);
    expect(evm?.address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
  });
});
