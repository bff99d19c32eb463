import { ed25519 } from "@noble/curves/ed25519";
import { secp256k1 } from "@noble/curves/secp256k1";
import { mnemonicToEntropy } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../crypto";
import {
  combineShares,
  decodeWalletSecret,
  decryptRecoveryShare,
  encodeWalletSecret,
  encryptRecoveryShare,
  mnemonicOfSecret,
  newRecoveryCode,
  newWalletSecret,
  openServiceShare,
  openSignInWallet,
  openSplitShare,
  openUserShare,
  publicKeyOf,
  RecoveryError,
  recoveryCodeBytes,
  sealServiceShare,
  sealSignInWallet,
  sealSplitShare,
  sealUserShare,
  shareBearingOrganization,
  splitWalletSecret,
  UserShareError,
  WalletSecretError,
  walletOfEntropy,
} from ".";

// BIP-39's "abandon … about": the EVM address every wallet shows for it, and Phantom's Solana address.
const ABOUT = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("the wallet secret", () => {
  it("derives the accounts every wallet derives for a phrase", async () => {
    const { secret, accounts } = await walletOfEntropy(mnemonicToEntropy(ABOUT, wordlist));
    expect(accounts.map((a) => a.address)).toEqual([
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
    ]);
    const evmKey = secret.accounts[0]?.privateKey as Uint8Array;
    expect(privateKeyToAccount(`0x${toHex(evmKey)}`).address).toBe(accounts[0]?.address);
    expect(mnemonicOfSecret(secret)).toBe(ABOUT);
  });

  it("encodes, splits and combines back to the same bytes; one share alone is not the secret", async () => {
    const { secret, accounts } = await newWalletSecret();
    const encoded = encodeWalletSecret(secret);
    expect(encoded.length).toBe(3 + 16 + 2 * 33);
    const { userShare, serviceShare } = await splitWalletSecret(encoded);
    expect(userShare.length).toBe(encoded.length + 1);
    expect(toHex(userShare)).not.toContain(toHex(secret.accounts[0]?.privateKey as Uint8Array));
    const back = decodeWalletSecret(await combineShares(userShare, serviceShare));
    expect(back.entropy).toEqual(secret.entropy);
    expect(back.accounts.map((a) => publicKeyOf(a))).toEqual(accounts.map((a) => a.publicKey));
    expect(toHex(secp256k1.getPublicKey(back.accounts[0]?.privateKey as Uint8Array, false))).toBe(
      accounts[0]?.publicKey,
    );
    expect(toHex(ed25519.getPublicKey(back.accounts[1]?.privateKey as Uint8Array))).toBe(
      accounts[1]?.publicKey,
    );
  });

  it("a share of another wallet combines to a secret whose keys are not the account's", async () => {
    const a = await splitWalletSecret(encodeWalletSecret((await newWalletSecret()).secret));
    const b = await newWalletSecret();
    const bShares = await splitWalletSecret(encodeWalletSecret(b.secret));
    let mixed: string | null = null;
    try {
      mixed = publicKeyOf(
        decodeWalletSecret(await combineShares(a.userShare, bShares.serviceShare)).accounts[0]!,
      );
    } catch (e) {
      expect(e).toBeInstanceOf(Error);
    }
    expect(mixed).not.toBe(b.accounts[0]?.publicKey);
    await expect(combineShares(a.userShare.subarray(1), bShares.serviceShare)).rejects.toThrow(
      WalletSecretError,
    );
  });
});

describe("the sealed user share", () => {
  const shareKeyPrivate = generateP256PrivateKey();
  const shareKey = {
    privateKey: shareKeyPrivate,
    publicKey: toHex(p256PublicKeyFromPrivate(shareKeyPrivate, false)),
  };
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    organizationId: "org-1",
    parameters: {},
  });

  it("opens for the body it was sealed with, and for no other", async () => {
    const userShare = new Uint8Array([1, 2, 3, 4, 5]);
    const sealed = await sealUserShare({ userShare, shareKey: shareKey.publicKey, body });
    expect(await openUserShare({ sealed, body, shareKey })).toEqual(userShare);
    await expect(openUserShare({ sealed, body: `${body} `, shareKey })).rejects.toThrow(UserShareError);
    await expect(openUserShare({ sealed: `${sealed}A`, body, shareKey })).rejects.toThrow(UserShareError);
    await expect(openUserShare({ sealed: "!!", body, shareKey })).rejects.toThrow(UserShareError);
    const other = generateP256PrivateKey();
    await expect(
      openUserShare({
        sealed,
        body,
        shareKey: { privateKey: other, publicKey: toHex(p256PublicKeyFromPrivate(other, false)) },
      }),
    ).rejects.toThrow(UserShareError);
  });

  it("a service share sealed for one organisation does not open for another, nor as a user share", async () => {
    const serviceShare = new Uint8Array([9, 8, 7]);
    const sealed = await sealServiceShare({
      serviceShare,
      shareKey: shareKey.publicKey,
      organizationId: "org-1",
    });
    expect(await openServiceShare({ sealed, organizationId: "org-1", shareKey })).toEqual(serviceShare);
    await expect(openServiceShare({ sealed, organizationId: "org-2", shareKey })).rejects.toThrow(
      UserShareError,
    );
    await expect(openUserShare({ sealed, body: "create:org-1", shareKey })).rejects.toThrow(UserShareError);
  });

  it("a split's user share opens with the holder's ephemeral key for its wallet only", async () => {
    const userShare = new Uint8Array([4, 4, 2]);
    const sealed = await sealSplitShare({ userShare, targetPublicKey: shareKey.publicKey, walletId: "w-1" });
    expect(await openSplitShare({ sealed, walletId: "w-1", key: shareKey })).toEqual(userShare);
    await expect(openSplitShare({ sealed, walletId: "w-2", key: shareKey })).rejects.toThrow(UserShareError);
    await expect(openUserShare({ sealed, body: "split:w-1", shareKey })).rejects.toThrow(UserShareError);
  });

  it("a sign-in's wallet: both shares in one envelope, opened for that organisation, code and session key only", async () => {
    const userShare = new Uint8Array([1, 1, 2, 3, 5]);
    const serviceShare = new Uint8Array([8, 13, 21, 34, 55]);
    const binding = {
      organizationId: "org-1",
      otpId: "otp-1",
      targetPublicKey: shareKey.publicKey.toUpperCase(),
    };
    const sealed = await sealSignInWallet({
      userShare,
      serviceShare,
      shareKey: shareKey.publicKey,
      ...binding,
    });
    // The target key is compared as the service compares keys: case does not matter.
    expect(
      await openSignInWallet({ sealed, shareKey, ...binding, targetPublicKey: shareKey.publicKey }),
    ).toEqual({ userShare, serviceShare });
    for (const other of [
      { ...binding, organizationId: "org-2" },
      { ...binding, otpId: "otp-2" },
      { ...binding, targetPublicKey: toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false)) },
    ]) {
      await expect(openSignInWallet({ sealed, shareKey, ...other })).rejects.toThrow(UserShareError);
    }
    // Not a user share of any body, and shares of different lengths are not a wallet's.
    await expect(openUserShare({ sealed, body: "sign-in:org-1:otp-1", shareKey })).rejects.toThrow(
      UserShareError,
    );
    await expect(
      sealSignInWallet({
        userShare,
        serviceShare: serviceShare.subarray(1),
        shareKey: shareKey.publicKey,
        ...binding,
      }),
    ).rejects.toThrow(UserShareError);
  });

  it("names the organisation of the bodies a key holder attaches its share to", () => {
    expect(shareBearingOrganization(body)).toBe("org-1");
    expect(
      shareBearingOrganization(
        JSON.stringify({ type: "ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET", organizationId: "o" }),
      ),
    ).toBe("o");
    expect(
      shareBearingOrganization(
        JSON.stringify({ type: "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET", organizationId: "o" }),
      ),
    ).toBeNull();
    expect(
      shareBearingOrganization(
        JSON.stringify({ type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", organizationId: "o" }),
      ),
    ).toBe("o");
    // A held signature's completion carries the share too (docs/split-custody.md §7).
    expect(
      shareBearingOrganization(
        JSON.stringify({ type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY", organizationId: "o" }),
      ),
    ).toBe("o");
    // A grant keeps the share until it ends; revoking one needs none.
    expect(
      shareBearingOrganization(JSON.stringify({ type: "OPERATION_TYPE_CREATE_GRANT", organizationId: "o" })),
    ).toBe("o");
    expect(
      shareBearingOrganization(JSON.stringify({ type: "OPERATION_TYPE_REVOKE_GRANT", organizationId: "o" })),
    ).toBeNull();
    expect(
      shareBearingOrganization(
        JSON.stringify({ type: "ACTIVITY_TYPE_CREATE_API_KEYS", organizationId: "o" }),
      ),
    ).toBeNull();
    expect(shareBearingOrganization(JSON.stringify({ organizationId: "o" }))).toBeNull();
    expect(shareBearingOrganization("not json")).toBeNull();
  });
});

describe("recovery", () => {
  it("a code has 160 bits in 8 groups of 4 and reads back however it is typed", () => {
    const code = newRecoveryCode();
    expect(code).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){7}[0-9A-HJKMNP-TV-Z]{4}$/);
    const bytes = recoveryCodeBytes(code);
    expect(bytes.length).toBe(20);
    expect(recoveryCodeBytes(code.toLowerCase().replace(/-/g, " "))).toEqual(bytes);
    expect(newRecoveryCode()).not.toBe(code);
    expect(() => recoveryCodeBytes(code.slice(1))).toThrow(RecoveryError);
    expect(() => recoveryCodeBytes(`${code.slice(0, -1)}U`)).toThrow(RecoveryError);
  });

  it("the blob opens with the code it was made with, for its wallet only", async () => {
    const userShare = new Uint8Array(87).fill(7);
    const ikm = recoveryCodeBytes(newRecoveryCode());
    const blob = await encryptRecoveryShare({ userShare, walletId: "w1", ikm });
    expect(JSON.stringify(blob)).not.toContain("BwcH");
    expect(await decryptRecoveryShare({ blob, walletId: "w1", ikm })).toEqual(userShare);
    await expect(decryptRecoveryShare({ blob, walletId: "w2", ikm })).rejects.toThrow(RecoveryError);
    const wrong = recoveryCodeBytes(newRecoveryCode());
    await expect(decryptRecoveryShare({ blob, walletId: "w1", ikm: wrong })).rejects.toThrow(RecoveryError);
    await expect(encryptRecoveryShare({ userShare, walletId: "w1", ikm: new Uint8Array(8) })).rejects.toThrow(
      RecoveryError,
    );
  });
});
