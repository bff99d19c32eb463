import { createPublicKey, randomBytes, verify } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { secp256k1 } from "@noble/curves/secp256k1";
import { base58 } from "@scure/base";
import { HDKey } from "@scure/bip32";
import * as bip39 from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { describe, expect, it } from "vitest";
import {
  bip32DerivePrivateKey,
  deriveAccounts,
  deriveAccountsAsync,
  ed25519PublicKey,
  entropyToMnemonic,
  mnemonicToSeed,
  newMnemonic,
  signEd25519,
  signSecp256k1,
  slip10Ed25519,
  toChecksumAddress,
} from "./wallet";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("wallet derivation", () => {
  it("matches the BIP-39 vector for the seed", () => {
    // BIP-39 reference vector (passphrase "TREZOR").
    expect(mnemonicToSeed(ABANDON, "TREZOR").toString("hex")).toBe(
      "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
    );
  });

  it("derives the well-known EVM and Solana addresses of the test mnemonic", () => {
    const [evm, sol] = deriveAccounts(ABANDON);
    expect(evm?.address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
    expect(evm?.path).toBe("m/44'/60'/0'/0/0");
    expect(sol?.address).toBe("HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk");
    expect(sol?.path).toBe("m/44'/501'/0'/0'");
  });

  it("derives BIP-32 keys as @scure/bip32 does, for random seeds and mixed paths", () => {
    for (let i = 0; i < 25; i++) {
      const seed = randomBytes(64);
      for (const path of ["m/44'/60'/0'/0/0", "m/0/1/2", "m/44'/60'/3'/1/7"]) {
        const expected = HDKey.fromMasterSeed(seed).derive(path).privateKey as Uint8Array;
        expect(Buffer.from(bip32DerivePrivateKey(seed, path)).toString("hex")).toBe(
          Buffer.from(expected).toString("hex"),
        );
      }
    }
  });

  it("derives the same accounts off the event loop", async () => {
    const [a, b] = await deriveAccountsAsync(ABANDON);
    expect(a?.address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
    expect(b?.address).toBe("HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk");
  });

  it("follows SLIP-0010 test vector 1 for ed25519", () => {
    const seed = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");
    expect(Buffer.from(slip10Ed25519(seed, "m/0'")).toString("hex")).toBe(
      "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3",
    );
    expect(Buffer.from(slip10Ed25519(seed, "m/0'/1'/2'/2'/1000000000'")).toString("hex")).toBe(
      "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793",
    );
  });

  it("writes EIP-55 checksums", () => {
    expect(toChecksumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe(
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    );
    expect(toChecksumAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359")).toBe(
      "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    );
  });

  it("signs low-s with a recovery id, and ed25519 that verifies", () => {
    const [evm, sol] = deriveAccounts(ABANDON);
    const digest = new Uint8Array(32).fill(7);
    const sig = signSecp256k1(digest, evm?.privateKey as Uint8Array);
    const s = BigInt(`0x${sig.s}`);
    expect(s <= secp256k1.CURVE.n / 2n).toBe(true);
    const recovered = new secp256k1.Signature(BigInt(`0x${sig.r}`), s)
      .addRecoveryBit(sig.v)
      .recoverPublicKey(digest);
    expect(recovered.toHex(false)).toBe(evm?.publicKey);

    const msg = new TextEncoder().encode("hi");
    const edSig = signEd25519(msg, sol?.privateKey as Uint8Array);
    const spki = Buffer.concat([
      Buffer.from("302a300506032b6570032100", "hex"),
      Buffer.from(base58.decode(sol?.address as string)),
    ]);
    expect(verify(null, msg, createPublicKey({ key: spki, format: "der", type: "spki" }), edSig)).toBe(true);
  });

  it("writes BIP-39 words as @scure/bip39 does, for every entropy length", () => {
    expect(entropyToMnemonic(new Uint8Array(16))).toBe(ABANDON);
    // BIP-39's own vector (TREZOR list): 0x7f… × 16.
    expect(entropyToMnemonic(new Uint8Array(16).fill(0x7f))).toBe(
      "legal winner thank year wave sausage worth useful legal winner thank yellow",
    );
    for (const bytes of [16, 20, 24, 28, 32]) {
      for (let i = 0; i < 200; i++) {
        const entropy = new Uint8Array(randomBytes(bytes));
        expect(entropyToMnemonic(entropy)).toBe(bip39.entropyToMnemonic(entropy, wordlist));
      }
    }
    expect(() => entropyToMnemonic(new Uint8Array(15))).toThrow();
    const words = newMnemonic();
    expect(words.split(" ")).toHaveLength(12);
    expect(bip39.validateMnemonic(words, wordlist)).toBe(true);
  });

  it("computes ed25519 public keys and signatures as RFC 8032 and noble do", () => {
    // RFC 8032 §7.1, test 1.
    const seed = Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex");
    expect(Buffer.from(ed25519PublicKey(seed)).toString("hex")).toBe(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    );
    expect(Buffer.from(signEd25519(new Uint8Array(0), seed)).toString("hex")).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
    for (let i = 0; i < 100; i++) {
      const s = new Uint8Array(randomBytes(32));
      expect(Buffer.from(ed25519PublicKey(s))).toEqual(Buffer.from(ed25519.getPublicKey(s)));
      const msg = new Uint8Array(randomBytes(i));
      expect(Buffer.from(signEd25519(msg, s))).toEqual(Buffer.from(ed25519.sign(msg, s)));
    }
  });
});
