import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServiceContext } from "../context";
import { Keyring } from "../crypto/keyring";
import type { DerivedAccount } from "../crypto/wallet";
import { migrate, type OpenedDatabase, openDatabase } from "../db/index";
import { sealAccount, sealNewWallet, sealWalletOf } from "./sealWallet";

const MNEMONIC = "test test test test test test test test test test test junk";

let opened: OpenedDatabase;
let ctx: Pick<ServiceContext, "keyring" | "random" | "wallets">;
let derived: DerivedAccount[];
let asked: string[];
beforeEach(async () => {
  opened = openDatabase(":memory:");
  await migrate(opened.db);
  const keyring = new Keyring(opened.db, Buffer.alloc(32, 1));
  await keyring.init();
  let n = 0;
  asked = [];
  derived = [
    {
      curve: "CURVE_SECP256K1",
      path: "m/44'/60'/0'/0/0",
      addressFormat: "ADDRESS_FORMAT_ETHEREUM",
      address: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      publicKey: "02aa",
      privateKey: new Uint8Array(32).fill(7),
    },
    {
      curve: "CURVE_ED25519",
      path: "m/44'/501'/0'/0'",
      addressFormat: "ADDRESS_FORMAT_SOLANA",
      address: "GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW",
      publicKey: "ed",
      privateKey: new Uint8Array(32).fill(8),
    },
  ];
  ctx = {
    keyring,
    random: { uuid: () => `id-${++n}` } as ServiceContext["random"],
    wallets: {
      derive: async (m: string) => {
        asked.push(m);
        return derived;
      },
    },
  };
});
afterEach(() => opened.close());

describe("sealWalletOf", () => {
  it("seals the mnemonic to the wallet's row and each private key to its account's row", async () => {
    const w = await sealWalletOf(ctx, MNEMONIC);
    expect(asked).toEqual([MNEMONIC]);
    expect(w.id).toBe("id-1");
    expect((await ctx.keyring.open(w.sealedMnemonic, "wallet:id-1")).toString()).toBe(MNEMONIC);
    await expect(ctx.keyring.open(w.sealedMnemonic, "wallet:id-2")).rejects.toThrow();
    const [eth, sol] = w.accounts;
    expect(eth).toMatchObject({
      id: "id-2",
      curve: "CURVE_SECP256K1",
      path: "m/44'/60'/0'/0/0",
      address_format: "ADDRESS_FORMAT_ETHEREUM",
      address: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      // EVM addresses are looked up lower-case; Solana's base58 is case-sensitive.
      address_key: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
      public_key: "02aa",
    });
    expect(sol).toMatchObject({ id: "id-3", address_key: "GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW" });
    expect(await ctx.keyring.open(eth!.sealed_private_key, "wallet_account:id-2")).toEqual(
      Buffer.alloc(32, 7),
    );
    expect(await ctx.keyring.open(sol!.sealed_private_key, "wallet_account:id-3")).toEqual(
      Buffer.alloc(32, 8),
    );
    await expect(ctx.keyring.open(eth!.sealed_private_key, "wallet_account:id-3")).rejects.toThrow();
  });

  it("wipes each private key once sealed", async () => {
    const row = sealAccount(ctx, derived[0]!);
    expect(derived[0]!.privateKey).toEqual(new Uint8Array(32));
    expect(await ctx.keyring.open(row.sealed_private_key, `wallet_account:${row.id}`)).toEqual(
      Buffer.alloc(32, 7),
    );
  });

  it("makes a new wallet from a fresh 12-word mnemonic", async () => {
    const w = await sealNewWallet(ctx);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.split(" ")).toHaveLength(12);
    expect(validateMnemonic(asked[0]!, wordlist)).toBe(true);
    expect((await ctx.keyring.open(w.sealedMnemonic, `wallet:${w.id}`)).toString()).toBe(asked[0]);
  });
});
