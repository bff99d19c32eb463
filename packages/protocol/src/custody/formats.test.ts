import { ed25519 } from "@noble/curves/ed25519";
import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { describe, expect, it } from "vitest";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../crypto";
import { encodeBase64url } from "../crypto/base64url";
import { hpkeSealBase } from "../crypto/bundle";
import { concatBytes, fromHex } from "../crypto/hex";
import {
  combineShares,
  decodeWalletSecret,
  encodeWalletSecret,
  openServiceShare,
  openUserShare,
  publicAccountOf,
  SHARE_BEARING_ACTIVITY_TYPES,
  SHARE_KEY_META,
  shareBearingOrganization,
  splitWalletSecret,
  USER_SHARE_HEADER_NAME,
  UserShareError,
  type WalletSecret,
  WalletSecretError,
  walletOfEntropy,
} from ".";

/**
 * The exact formats split custody puts on the wire and at rest (docs/split-custody.md §1–2): the bounds
 * of the encoded secret, the sealed share's envelope and its HPKE `info`s, the names a key holder and the
 * frames agree on. A change here breaks every stored share or every deployed frame.
 */

const key = (n: number) => new Uint8Array(32).fill(n);
const secretOf = (entropyLength: number, accounts: WalletSecret["accounts"]): WalletSecret => ({
  entropy: new Uint8Array(entropyLength).fill(7),
  accounts,
});
const evm = (n: number) => ({ curve: "CURVE_SECP256K1" as const, privateKey: key(n) });
const sol = (n: number) => ({ curve: "CURVE_ED25519" as const, privateKey: key(n) });

const throwsSecret = (f: () => unknown, message: string) => {
  expect(f).toThrow(WalletSecretError);
  expect(f).toThrow(message);
};

describe("the encoded wallet secret", () => {
  it("0x01 ‖ entropy length ‖ entropy ‖ count ‖ (curve ‖ key)…, and back", () => {
    const bytes = encodeWalletSecret(secretOf(2, [evm(1), sol(2)]));
    expect(toHex(bytes)).toBe(`01020707${"02"}01${"01".repeat(32)}02${"02".repeat(32)}`);
    expect(decodeWalletSecret(bytes)).toEqual(secretOf(2, [evm(1), sol(2)]));
    for (const [entropy, count] of [
      [0, 1],
      [64, 16],
    ] as const) {
      const secret = secretOf(
        entropy,
        Array.from({ length: count }, (_, i) => (i % 2 ? sol(i) : evm(i))),
      );
      expect(decodeWalletSecret(encodeWalletSecret(secret))).toEqual(secret);
    }
  });

  it("refuses what it cannot encode", () => {
    throwsSecret(() => encodeWalletSecret(secretOf(65, [evm(1)])), "entropy is at most 64 bytes");
    throwsSecret(() => encodeWalletSecret(secretOf(16, [])), "1 to 16 accounts");
    throwsSecret(
      () =>
        encodeWalletSecret(
          secretOf(
            16,
            Array.from({ length: 17 }, () => evm(1)),
          ),
        ),
      "1 to 16 accounts",
    );
    throwsSecret(
      () => encodeWalletSecret(secretOf(16, [{ curve: "CURVE_SECP256K1", privateKey: new Uint8Array(31) }])),
      "account keys are 32 bytes",
    );
    expect(new WalletSecretError("x").name).toBe("WalletSecretError");
  });

  it("refuses bytes that are not one: another version, no account, a byte short or over, an unknown curve", () => {
    const good = encodeWalletSecret(secretOf(16, [evm(1)]));
    const version = good.slice();
    version[0] = 2;
    throwsSecret(() => decodeWalletSecret(version), "unknown wallet secret version");
    const none = Uint8Array.of(1, 0, 0);
    throwsSecret(() => decodeWalletSecret(none), "wallet secret has the wrong length");
    throwsSecret(() => decodeWalletSecret(Uint8Array.of(1, 0)), "wallet secret has the wrong length");
    throwsSecret(
      () => decodeWalletSecret(good.subarray(0, good.length - 1)),
      "wallet secret has the wrong length",
    );
    throwsSecret(
      () => decodeWalletSecret(concatBytes(good, Uint8Array.of(0))),
      "wallet secret has the wrong length",
    );
    const curve = good.slice();
    curve[2 + 16 + 1] = 3;
    throwsSecret(() => decodeWalletSecret(curve), "unknown curve in wallet secret");
  });

  it("combines only a pair of one length, of at least two bytes", async () => {
    const tiny = await splitWalletSecret(Uint8Array.of(9));
    expect(tiny.userShare.length).toBe(2);
    expect(await combineShares(tiny.userShare, tiny.serviceShare)).toEqual(Uint8Array.of(9));
    const { userShare, serviceShare } = await splitWalletSecret(encodeWalletSecret(secretOf(16, [evm(1)])));
    await expect(combineShares(userShare, serviceShare.subarray(1))).rejects.toThrow(
      "shares differ in length",
    );
    await expect(combineShares(Uint8Array.of(1), Uint8Array.of(2))).rejects.toThrow(
      "shares differ in length",
    );
    // Two copies of one share: the same x-coordinate twice, which Shamir refuses.
    await expect(combineShares(userShare, userShare)).rejects.toThrow(WalletSecretError);
    await expect(combineShares(userShare, userShare)).rejects.toThrow("shares do not combine");
  });

  it("the public accounts name their curve and address format, and the entropy is the caller's copy", async () => {
    const entropy = new Uint8Array(16).fill(0x42);
    const { secret, accounts } = await walletOfEntropy(entropy);
    expect(accounts.map(({ curve, path, addressFormat }) => ({ curve, path, addressFormat }))).toEqual([
      { curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      { curve: "CURVE_ED25519", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
    ]);
    entropy.fill(0);
    expect(secret.entropy).toEqual(new Uint8Array(16).fill(0x42));
    const solana = publicAccountOf(sol(5), "m/0'");
    expect(solana).toEqual({
      curve: "CURVE_ED25519",
      path: "m/0'",
      addressFormat: "ADDRESS_FORMAT_SOLANA",
      address: expect.any(String),
      publicKey: toHex(ed25519.getPublicKey(key(5))),
    });
  });
});

describe("the sealed share", () => {
  const privateKey = generateP256PrivateKey();
  const shareKey = { privateKey, publicKey: toHex(p256PublicKeyFromPrivate(privateKey, false)) };

  /** A share sealed as the wire format says, without protocol's own sealers: the info and aad pinned. */
  const sealAs = async (plaintext: Uint8Array, info: string, aad: Uint8Array) => {
    const { enc, ciphertext } = await hpkeSealBase({
      plaintext,
      recipientPublicKey: fromHex(shareKey.publicKey),
      info,
      aad,
    });
    return encodeBase64url(concatBytes(enc, ciphertext));
  };

  it("a user share is HPKE with info latchkey_user_share_v1 and aad sha256(body); a service share with latchkey_service_share_v1 and create:<org>", async () => {
    const share = Uint8Array.of(1, 2, 3);
    const body = '{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}';
    const user = await sealAs(share, "latchkey_user_share_v1", sha256(utf8ToBytes(body)));
    expect(await openUserShare({ sealed: user, body, shareKey })).toEqual(share);
    const service = await sealAs(share, "latchkey_service_share_v1", utf8ToBytes("create:org-1"));
    expect(await openServiceShare({ sealed: service, organizationId: "org-1", shareKey })).toEqual(share);
  });

  it("refuses an envelope that is empty, too long, not base64url or shorter than enc and a tag, saying which", async () => {
    const open = (sealed: unknown) => openUserShare({ sealed: sealed as string, body: "b", shareKey });
    const refuses = async (sealed: unknown, message: string) => {
      const e = await open(sealed).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(UserShareError);
      expect((e as Error).message).toBe(message);
      expect((e as Error).name).toBe("UserShareError");
    };
    await refuses("", "the sealed share is empty or too long");
    await refuses(42, "the sealed share is empty or too long");
    await refuses("A".repeat(2049), "the sealed share is empty or too long");
    await refuses("A".repeat(2048), "the sealed share does not open for this request");
    await refuses("@@@@", "the sealed share is not base64url");
    await refuses(encodeBase64url(new Uint8Array(65 + 16)), "the sealed share is too short");
    await refuses(
      encodeBase64url(new Uint8Array(65 + 17)),
      "the sealed share does not open for this request",
    );
  });

  it("the header, the frames' meta name and the share-bearing body types are the ones deployed", () => {
    expect(USER_SHARE_HEADER_NAME).toBe("X-User-Share");
    expect(SHARE_KEY_META).toBe("latchkey-share-key");
    for (const type of SHARE_BEARING_ACTIVITY_TYPES) {
      expect(shareBearingOrganization(JSON.stringify({ type, organizationId: "o" }))).toBe("o");
    }
    expect([...SHARE_BEARING_ACTIVITY_TYPES]).toEqual(
      expect.arrayContaining([
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
      ]),
    );
    for (const body of [
      { type: 1, organizationId: "o" },
      { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", organizationId: 1 },
      { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" },
      { type: "ACTIVITY_TYPE_EXPORT_WALLET", organizationId: "o" },
    ]) {
      expect(shareBearingOrganization(JSON.stringify(body))).toBeNull();
    }
    expect(shareBearingOrganization("not json")).toBeNull();
  });
});
