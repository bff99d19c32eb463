import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { decodeBase64url, encodeBase64url } from "../crypto/base64url";
import { hpkeOpenBase, hpkeSealBase } from "../crypto/bundle";
import { concatBytes, fromHex } from "../crypto/hex";

/** The header that carries a request's sealed user share beside `X-Stamp` (docs/split-custody.md §2). */
export const USER_SHARE_HEADER_NAME = "X-User-Share";
/** The `<meta>` of the auth and export frames' pages with the service's share key (uncompressed hex). */
export const SHARE_KEY_META = "latchkey-share-key";

const USER_SHARE_INFO = "latchkey_user_share_v1";
const SERVICE_SHARE_INFO = "latchkey_service_share_v1";
const ENC_LENGTH = 65;
// A share of a 2-account wallet is ~86 bytes; 16 accounts and 64 bytes of entropy are < 700.
const MAX_SEALED_LENGTH = 2048;

export class UserShareError extends Error {
  override name = "UserShareError";
}

const bodyHash = (body: string) => sha256(utf8ToBytes(body));

async function seal(plaintext: Uint8Array, shareKey: string, info: string, aad: Uint8Array): Promise<string> {
  const { enc, ciphertext } = await hpkeSealBase({
    plaintext,
    recipientPublicKey: fromHex(shareKey),
    info,
    aad,
  });
  return encodeBase64url(concatBytes(enc, ciphertext));
}

/** The inputs of one HPKE base-mode open, as {@link hpkeOpenBase} takes them. */
export interface HpkeOpenArgs<K> {
  enc: Uint8Array;
  ciphertext: Uint8Array;
  recipientPrivateKey: K;
  recipientPublicKey: Uint8Array;
  info: string;
  aad: Uint8Array;
}
/**
 * An HPKE base-mode opener of the bundle suite (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM; aad
 * enc ‖ pkR ‖ aad): @hpke/core's by default; the service passes its synchronous node:crypto one.
 */
export type HpkeOpen<K> = (args: HpkeOpenArgs<K>) => Uint8Array | Promise<Uint8Array>;

/** The share key as an opener takes it: its private key (bytes, CryptoKey or the opener's own) and public key. */
export interface ShareKey<K = Uint8Array | CryptoKey> {
  privateKey: K;
  publicKey: string;
}

async function open<K>(
  sealed: string,
  key: ShareKey<K>,
  info: string,
  aad: Uint8Array,
  opener?: HpkeOpen<K>,
): Promise<Uint8Array> {
  if (typeof sealed !== "string" || sealed.length === 0 || sealed.length > MAX_SEALED_LENGTH) {
    throw new UserShareError("the sealed share is empty or too long");
  }
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64url(sealed);
  } catch {
    throw new UserShareError("the sealed share is not base64url");
  }
  if (bytes.length <= ENC_LENGTH + 16) throw new UserShareError("the sealed share is too short");
  const args: HpkeOpenArgs<K> = {
    enc: bytes.subarray(0, ENC_LENGTH),
    ciphertext: bytes.subarray(ENC_LENGTH),
    recipientPrivateKey: key.privateKey,
    recipientPublicKey: fromHex(key.publicKey),
    info,
    aad,
  };
  try {
    // Without an opener the key is bytes or a CryptoKey (the default K), which hpkeOpenBase takes.
    return await (opener ? opener(args) : hpkeOpenBase(args as HpkeOpenArgs<Uint8Array | CryptoKey>));
  } catch {
    throw new UserShareError("the sealed share does not open for this request");
  }
}

/**
 * The user's share for one request: HPKE-sealed to the service's share key, bound to the exact body the
 * stamp signs (aad = sha256(body)), so it opens for that body only.
 */
export function sealUserShare(args: {
  userShare: Uint8Array;
  shareKey: string;
  body: string;
}): Promise<string> {
  return seal(args.userShare, args.shareKey, USER_SHARE_INFO, bodyHash(args.body));
}

/** Inverse of {@link sealUserShare} (the service); throws UserShareError when it does not open for `body`. */
export function openUserShare<K = Uint8Array | CryptoKey>(args: {
  sealed: string;
  body: string;
  shareKey: ShareKey<K>;
  /** The HPKE opener (default @hpke/core's); required when `shareKey.privateKey` is the opener's own kind. */
  hpkeOpen?: HpkeOpen<K>;
}): Promise<Uint8Array> {
  return open(args.sealed, args.shareKey, USER_SHARE_INFO, bodyHash(args.body), args.hpkeOpen);
}

const serviceShareAad = (organizationId: string) => utf8ToBytes(`create:${organizationId}`);

/** The service's share of a new wallet, sealed to the share key for the organisation it is made for. */
export function sealServiceShare(args: {
  serviceShare: Uint8Array;
  shareKey: string;
  organizationId: string;
}): Promise<string> {
  return seal(args.serviceShare, args.shareKey, SERVICE_SHARE_INFO, serviceShareAad(args.organizationId));
}

/** Inverse of {@link sealServiceShare} (the service). */
export function openServiceShare<K = Uint8Array | CryptoKey>(args: {
  sealed: string;
  organizationId: string;
  shareKey: ShareKey<K>;
  hpkeOpen?: HpkeOpen<K>;
}): Promise<Uint8Array> {
  return open(
    args.sealed,
    args.shareKey,
    SERVICE_SHARE_INFO,
    serviceShareAad(args.organizationId),
    args.hpkeOpen,
  );
}

const SIGN_IN_WALLET_INFO = "latchkey_sign_in_wallet_v1";

/** What a sign-in's wallet is bound to: the organisation, the code's id and the session's target key. */
export interface SignInBinding {
  organizationId: string;
  otpId: string;
  targetPublicKey: string;
}

const signInAad = (b: SignInBinding) =>
  utf8ToBytes(`sign-in:${b.organizationId}:${b.otpId}:${b.targetPublicKey.toLowerCase()}`);

/**
 * A new wallet's two shares for the sign-in that issues the user's first session (docs/split-custody.md
 * §3): one HPKE envelope to the share key, user share ‖ service share (they are as long as each other),
 * bound to that sign-in (aad: organisation, code id, target key), so it opens for that code and session
 * key only, and a code is spent once.
 */
export async function sealSignInWallet(
  args: { userShare: Uint8Array; serviceShare: Uint8Array; shareKey: string } & SignInBinding,
): Promise<string> {
  if (args.userShare.length !== args.serviceShare.length) {
    throw new UserShareError("the two shares of a wallet are as long as each other");
  }
  const plaintext = concatBytes(args.userShare, args.serviceShare);
  try {
    return await seal(plaintext, args.shareKey, SIGN_IN_WALLET_INFO, signInAad(args));
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Inverse of {@link sealSignInWallet} (the service): the two shares, copies the caller wipes; throws
 * UserShareError when it does not open for this sign-in.
 */
export async function openSignInWallet<K = Uint8Array | CryptoKey>(
  args: { sealed: string; shareKey: ShareKey<K>; hpkeOpen?: HpkeOpen<K> } & SignInBinding,
): Promise<{ userShare: Uint8Array; serviceShare: Uint8Array }> {
  const plaintext = await open(
    args.sealed,
    args.shareKey,
    SIGN_IN_WALLET_INFO,
    signInAad(args),
    args.hpkeOpen,
  );
  try {
    const half = plaintext.length / 2;
    if (plaintext.length < 4 || !Number.isInteger(half)) {
      throw new UserShareError("the sealed wallet is not two shares");
    }
    return { userShare: plaintext.slice(0, half), serviceShare: plaintext.slice(half) };
  } finally {
    plaintext.fill(0);
  }
}

const SPLIT_SHARE_INFO = "latchkey_split_share_v1";
const splitShareAad = (walletId: string) => utf8ToBytes(`split:${walletId}`);

/**
 * A whole wallet's user share as `begin_split_wallet` answers it (docs/split-custody.md §3.1): HPKE-sealed
 * by the service to the key holder's ephemeral key (`targetPublicKey`, uncompressed P-256 hex) for this
 * wallet, so the page between them (core, the host app) carries it without reading it.
 */
export function sealSplitShare(args: {
  userShare: Uint8Array;
  targetPublicKey: string;
  walletId: string;
}): Promise<string> {
  return seal(args.userShare, args.targetPublicKey, SPLIT_SHARE_INFO, splitShareAad(args.walletId));
}

/** Inverse of {@link sealSplitShare} (the key holder, with its ephemeral key); UserShareError when it does not open. */
export function openSplitShare(args: {
  sealed: string;
  walletId: string;
  key: { privateKey: Uint8Array | CryptoKey; publicKey: string };
}): Promise<Uint8Array> {
  return open(args.sealed, args.key, SPLIT_SHARE_INFO, splitShareAad(args.walletId));
}

/**
 * The body types a key holder attaches its share to: every activity that signs with a split wallet's key
 * (a held one's completion too), the ones that make and split the wallet, and the grant the user consents
 * to (the grant keeps the share until it ends: docs/split-custody.md §5.1).
 */
export const SHARE_BEARING_ACTIVITY_TYPES: ReadonlySet<string> = new Set([
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
  // An approved held signature, made when the user's device completes it (docs/split-custody.md §7).
  "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
  "ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET",
  // A wallet imported into a split app: the import frame split it (docs/split-custody.md §5, Import).
  "ACTIVITY_TYPE_IMPORT_WALLET",
  "OPERATION_TYPE_CREATE_GRANT",
]);

/**
 * The organisation a body's share is for, when the body is one a key holder should attach its share to;
 * null otherwise (a query, another submit, not JSON).
 */
export function shareBearingOrganization(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { type?: unknown; organizationId?: unknown };
    return typeof parsed.type === "string" &&
      SHARE_BEARING_ACTIVITY_TYPES.has(parsed.type) &&
      typeof parsed.organizationId === "string"
      ? parsed.organizationId
      : null;
  } catch {
    return null;
  }
}
