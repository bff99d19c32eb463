import {
  combineShares,
  decodeWalletSecret,
  type WalletSecret,
  WalletSecretError,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import type { ServiceContext, SplitAccount } from "../context";
import { secp256k1Impl } from "../crypto/secp256k1";
import { ed25519PublicKey } from "../crypto/wallet";
import { apiError, ErrorCode } from "../errors";
import { openRequestShare, type RequestShare, requireShare } from "./shareKey";

type Curve = "CURVE_SECP256K1" | "CURVE_ED25519";

export type { SplitAccount };

const invalid = () =>
  apiError(
    ErrorCode.USER_SHARE_INVALID,
    "The user's share does not combine with the service's share to this account's key",
  );

/**
 * A user share the service keeps for a while (a grant's, handed over at consent: docs/split-custody.md
 * §5.1): `open` reads it now and opens it, or refuses (the grant revoked or expired, the share gone).
 */
export interface HeldShare {
  open: () => Promise<Uint8Array>;
}

/** Where a signature's user share comes from: the request itself, or a share the service holds. */
export type UserShareSource = RequestShare | HeldShare;

const isHeld = (share: UserShareSource | undefined): share is HeldShare =>
  share !== undefined && "open" in share;

/**
 * Runs `sign` with the key of a split wallet's account (docs/split-custody.md §2), after every rule has
 * passed: the request's user share (opened for this exact body only) or a held share (a grant's),
 * combined with the service share, decoded, the account's key taken by its index and checked against the
 * stored public key. No share: 403 USER_SHARE_REQUIRED before anything is opened; a share that does not
 * open or combine to this key: 400 USER_SHARE_INVALID. Every share, the secret and the key are wiped in
 * `finally`.
 */
export async function withSplitKey<T>(
  ctx: Pick<ServiceContext, "keyring" | "serviceKeys">,
  account: { curve: Curve; split: SplitAccount },
  share: UserShareSource | undefined,
  sign: (curve: Curve, privateKey: Uint8Array) => T | Promise<T>,
): Promise<T> {
  if (!isHeld(share)) requireShare(share);
  let userShare: Uint8Array | undefined;
  try {
    userShare = isHeld(share) ? await share.open() : await openRequestShare(ctx, share);
    return await withCombinedKey(ctx, account, userShare, sign);
  } finally {
    userShare?.fill(0);
  }
}

/**
 * The request's user share, opened for its body and checked to combine with the service share to this
 * account's key, as a signature checks it (403 USER_SHARE_REQUIRED, 400 USER_SHARE_INVALID): what a grant
 * keeps (features/grants). Nothing is signed; the caller seals it and wipes it.
 */
export async function openCheckedUserShare(
  ctx: Pick<ServiceContext, "keyring" | "serviceKeys">,
  account: { curve: Curve; split: SplitAccount },
  share: RequestShare | undefined,
): Promise<Uint8Array> {
  const userShare = await openRequestShare(ctx, share);
  try {
    await withCombinedKey(ctx, account, userShare, () => undefined);
    return userShare;
  } catch (e) {
    userShare.fill(0);
    throw e;
  }
}

/** `sign` with the account's key put together from `userShare` and the service share (wiped after). */
function withCombinedKey<T>(
  ctx: Pick<ServiceContext, "keyring">,
  account: { curve: Curve; split: SplitAccount },
  userShare: Uint8Array,
  sign: (curve: Curve, privateKey: Uint8Array) => T | Promise<T>,
): Promise<T> {
  const sealed = {
    sealed: account.split.sealedServiceShare,
    context: `wallet_share:${account.split.walletId}`,
  };
  return withCombinedSecret(ctx, userShare, sealed, invalid, (secret) => {
    const key = secret.accounts[account.split.secretIndex];
    if (!key || key.curve !== account.curve || !matchesPublicKey(key, account.split.publicKey)) {
      throw invalid();
    }
    return sign(account.curve, key.privateKey);
  });
}

/**
 * `use` with the wallet secret of `userShare` and a service share sealed under `context` (the current
 * one, or a conversion's pending one): opened, combined and decoded, `invalid()` when the two do not
 * combine to a secret. The service share, the combined bytes and the secret are wiped after, whatever
 * happens; the caller wipes `userShare`.
 */
export async function withCombinedSecret<T>(
  ctx: Pick<ServiceContext, "keyring">,
  userShare: Uint8Array,
  serviceShare: { sealed: string; context: string },
  invalid: () => Error,
  use: (secret: WalletSecret) => T | Promise<T>,
): Promise<T> {
  const opened = await ctx.keyring.open(serviceShare.sealed, serviceShare.context);
  // A plain Uint8Array: shamir-secret-sharing refuses a Buffer (it checks the constructor).
  const share = new Uint8Array(opened);
  opened.fill(0);
  let encoded: Uint8Array | undefined;
  let secret: WalletSecret | undefined;
  try {
    try {
      encoded = await combineShares(userShare, share);
      secret = decodeWalletSecret(encoded);
    } catch (e) {
      if (e instanceof WalletSecretError) throw invalid();
      throw e;
    }
    return await use(secret);
  } finally {
    share.fill(0);
    encoded?.fill(0);
    if (secret) wipeWalletSecret(secret);
  }
}

/**
 * Whether a combined key is the account's (a key out of garbage may not even be a scalar). The same
 * public key `publicKeyOf` writes, computed with the service's own implementations (libsecp256k1 where
 * the addon loads, node:crypto for ed25519): a fraction of the cost, on every signature.
 */
export function matchesPublicKey(key: WalletSecret["accounts"][number], publicKey: string): boolean {
  try {
    const pub =
      key.curve === "CURVE_SECP256K1"
        ? secp256k1Impl().publicKey(key.privateKey, false)
        : ed25519PublicKey(key.privateKey);
    return Buffer.from(pub).toString("hex") === publicKey.toLowerCase();
  } catch {
    return false;
  }
}
