import type { ECDH } from "node:crypto";
import { toHex, uncompressP256PublicKey } from "@latchkey/protocol";
import {
  openServiceShare,
  openSignInWallet,
  openUserShare,
  type SignInBinding,
  UserShareError,
} from "@latchkey/protocol/custody";
import type { ServiceContext } from "../context";
import { apiError, ErrorCode } from "../errors";
import { hpkeOpenP256, p256Ecdh } from "./hpkeOpen";

/**
 * The share key (docs/split-custody.md §2): the service's P-256 HPKE key that a key holder seals its
 * share to, per request, and a new wallet's service share to. Made on first use and sealed at rest like
 * the service's other keys (serviceKeys, purpose `share`).
 */
export async function shareKeyHex(ctx: Pick<ServiceContext, "serviceKeys">): Promise<string> {
  let hex = publicKeys.get(ctx.serviceKeys);
  if (!hex) {
    hex = toHex(uncompressP256PublicKey(await ctx.serviceKeys.publicKey("share")));
    publicKeys.set(ctx.serviceKeys, hex);
  }
  return hex;
}
// The public key, uncompressed once per service (it never changes once made).
const publicKeys = new WeakMap<object, string>();

const privateKeys = new WeakMap<object, Promise<ECDH>>();

/**
 * The share key's private key as a node:crypto ECDH, made once per service: the signing path opens
 * one share per signature (hpkeOpenP256, synchronous), and parsing the scalar each time (its public point)
 * costs more than the open itself. It stays in the process as the data keys do (README "Who can sign":
 * the memory of a running service holds them all); the opened bytes are wiped at once.
 */
function sharePrivateKey(ctx: Pick<ServiceContext, "serviceKeys">): Promise<ECDH> {
  let key = privateKeys.get(ctx.serviceKeys);
  if (!key) {
    key = ctx.serviceKeys.withPrivateKey("share", async (raw) => p256Ecdh(raw));
    privateKeys.set(ctx.serviceKeys, key);
    key.catch(() => privateKeys.delete(ctx.serviceKeys));
  }
  return key;
}

/** What a request brought for split custody: its sealed user share (if any) and the exact body signed. */
export interface RequestShare {
  /** `X-User-Share` or `stampedRequest.userShare`: the user share sealed to the share key for `body`. */
  sealed?: string | undefined;
  /** The exact body the stamp signs: what the sealed share is bound to. */
  body: string;
}

export const USER_SHARE_REQUIRED_MESSAGE =
  "This wallet is split between the user's device and the service: the request must carry the user's share (X-User-Share)";

/** 403 USER_SHARE_REQUIRED when the request carries no share: nothing is opened, nothing signed. */
export function requireShare(share: RequestShare | undefined): { sealed: string; body: string } {
  if (!share?.sealed) throw apiError(ErrorCode.USER_SHARE_REQUIRED, USER_SHARE_REQUIRED_MESSAGE);
  return { sealed: share.sealed, body: share.body };
}

/**
 * The request's user share, opened with the share key for exactly this body; 400 USER_SHARE_INVALID when
 * it does not open (sealed for another body, to another key, or not a sealed share). The caller wipes it.
 */
export async function openRequestShare(
  ctx: Pick<ServiceContext, "serviceKeys">,
  share: RequestShare | undefined,
): Promise<Uint8Array> {
  const { sealed, body } = requireShare(share);
  const publicKey = await shareKeyHex(ctx);
  try {
    return await openUserShare({
      sealed,
      body,
      shareKey: { privateKey: await sharePrivateKey(ctx), publicKey },
      hpkeOpen: hpkeOpenP256,
    });
  } catch (e) {
    if (e instanceof UserShareError) {
      throw apiError(ErrorCode.USER_SHARE_INVALID, "The user's share does not open for this request");
    }
    throw e;
  }
}

/** A new wallet's service share, sealed for `organizationId` (create_split_wallet); 400 when it does not open. */
export async function openNewServiceShare(
  ctx: Pick<ServiceContext, "serviceKeys">,
  params: { sealed: string; organizationId: string },
): Promise<Uint8Array> {
  const publicKey = await shareKeyHex(ctx);
  try {
    return await openServiceShare({
      ...params,
      shareKey: { privateKey: await sharePrivateKey(ctx), publicKey },
      hpkeOpen: hpkeOpenP256,
    });
  } catch (e) {
    if (e instanceof UserShareError) {
      throw apiError(
        ErrorCode.USER_SHARE_INVALID,
        "The service share does not open: it must be sealed to the share key for this organization",
      );
    }
    throw e;
  }
}

/**
 * A new wallet's two shares carried by the sign-in that issues the first session (`/v1/otp`'s
 * `splitWallet`), opened for exactly that sign-in; 400 USER_SHARE_INVALID when they do not open (sealed
 * for another code, session key or organisation, or to another key). The caller wipes both.
 */
export async function openSignInWalletShares(
  ctx: Pick<ServiceContext, "serviceKeys">,
  params: { sealed: string } & SignInBinding,
): Promise<{ userShare: Uint8Array; serviceShare: Uint8Array }> {
  const publicKey = await shareKeyHex(ctx);
  try {
    return await openSignInWallet({
      ...params,
      shareKey: { privateKey: await sharePrivateKey(ctx), publicKey },
      hpkeOpen: hpkeOpenP256,
    });
  } catch (e) {
    if (e instanceof UserShareError) {
      throw apiError(ErrorCode.USER_SHARE_INVALID, "The wallet's shares do not open for this sign-in");
    }
    throw e;
  }
}

/** 409 SPLIT_CUSTODY_UNSUPPORTED: `what` is not (yet) supported for split-custody wallets (the message says so). */
export function splitUnsupported(what: string) {
  return apiError(
    ErrorCode.SPLIT_CUSTODY_UNSUPPORTED,
    `${what} is not supported yet for split custody, where every signature needs the user's share (docs/split-custody.md)`,
  );
}
