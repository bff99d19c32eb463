import {
  type BrowserKeyStore,
  createBrowserKeyStore,
  createShareHolder,
  KeyStoreError,
  type ShareHolder,
} from "@latchkey/keystore";
import { SHARE_KEY_META } from "@latchkey/protocol/custody";
import type { FrameRequest } from "@latchkey/protocol/frame";
import { ConfirmationRejected, confirmSigning, isRegistrationBody } from "./confirm";
import { authFrameDatabase } from "./database";
import { metaContent } from "./meta";
import { serveParent } from "./serveParent";

/**
 * The auth frame (`/frames/auth`): holds the keys for the host page. It accepts a MessagePort only from
 * its parent window, and only when the parent's origin is one the app allows (the service also sends
 * `frame-ancestors` with those origins). Its only network requests go to its own origin, for the
 * confirmation step (confirm.ts: `preview_signing` and its confirmation key; CSP `connect-src 'self'`).
 */

/**
 * One key store per parent origin. Every page that embeds this frame from one site shares its storage
 * (the browser partitions a third-party frame's storage by the top-level site, and a first-party frame has
 * one storage for all): with one store, signing out of one app, or its session expiring, would delete the
 * target key of every other app on that site, and sign them out at their next load.
 */
const stores = new Map<string, BrowserKeyStore>();
function keysOf(parentOrigin: string): BrowserKeyStore {
  let keys = stores.get(parentOrigin);
  if (!keys) {
    keys = createBrowserKeyStore(authFrameDatabase(parentOrigin));
    stores.set(parentOrigin, keys);
  }
  return keys;
}

const shareHolders = new Map<BrowserKeyStore, ShareHolder>();
function sharesOf(keys: BrowserKeyStore): ShareHolder {
  let shares = shareHolders.get(keys);
  if (!shares) {
    shares = createShareHolder(keys.userShares);
    shareHolders.set(keys, shares);
  }
  return shares;
}

/** The service's share key, from this page (the frame trusts its own page, never the host's word). */
function shareKey(): string {
  const key = metaContent(SHARE_KEY_META);
  if (!key) throw new TypeError("this service publishes no share key");
  return key;
}

const organizationIdOf = (params: FrameRequest["params"]) => {
  if (typeof params?.organizationId !== "string") throw new TypeError("organizationId must be a string");
  return params.organizationId;
};
const walletIdOf = (params: FrameRequest["params"]) => {
  if (typeof params?.walletId !== "string") throw new TypeError("walletId must be a string");
  return params.walletId;
};
const prfOf = (params: FrameRequest["params"]) =>
  params?.prfOutput instanceof Uint8Array && params.prfOutput.length >= 16 ? params.prfOutput : undefined;

async function handle(request: FrameRequest, parentOrigin: string): Promise<unknown> {
  const keys = keysOf(parentOrigin);
  const { params } = request;
  switch (request.method) {
    case "initTargetKey":
      return keys.initTargetKey();
    case "getTargetPublicKey":
      return keys.getTargetPublicKey();
    case "injectCredentialBundle":
      if (typeof params?.bundle !== "string") throw new TypeError("bundle must be a string");
      return keys.injectCredentialBundle(params.bundle);
    case "stamp": {
      if (typeof params?.body !== "string") throw new TypeError("body must be a string");
      // A confirmation key is registered by this frame alone, for its own key (confirm.ts).
      if (isRegistrationBody(params.body))
        throw new TypeError("a confirmation key is registered only by the frame itself");
      // The user share of a split is sealed to the target the body names: only this frame's own key.
      if (!sharesOf(keys).mayStamp(params.body))
        throw new TypeError("a begin_split_wallet is stamped only with this frame's own split key");
      const stamp = await keys.stamp(params.body);
      const userShare = await sharesOf(keys).userShareFor(params.body, metaContent(SHARE_KEY_META));
      return userShare ? { ...stamp, userShare } : stamp;
    }
    case "confirmSigning": {
      // Enforced confirmations (issue 46): drawn here, stamped only once the user confirms here.
      if (typeof params?.body !== "string") throw new TypeError("body must be a string");
      const { confirmation } = await confirmSigning(keys, {
        body: params.body,
        parentOrigin,
        ...(typeof params.locale === "string" ? { locale: params.locale } : {}),
      });
      const stamp = await keys.stamp(params.body);
      const userShare = await sharesOf(keys).userShareFor(params.body, metaContent(SHARE_KEY_META));
      return { ...stamp, ...(userShare ? { userShare } : {}), confirmation };
    }
    case "clear":
      // The session's keys only: the user shares are the device's, and stay.
      return keys.clear(params?.targetKey !== false);
    case "createSplitWallet":
      return sharesOf(keys).createSplitWallet({
        organizationId: organizationIdOf(params),
        shareKey: shareKey(),
      });
    case "prepareSignInWallet":
      if (typeof params?.otpId !== "string") throw new TypeError("otpId must be a string");
      if (typeof params?.targetPublicKey !== "string")
        throw new TypeError("targetPublicKey must be a string");
      return sharesOf(keys).prepareSignInWallet({
        organizationId: organizationIdOf(params),
        shareKey: shareKey(),
        otpId: params.otpId,
        targetPublicKey: params.targetPublicKey,
      });
    case "keepSignInWallet":
      if (typeof params?.address !== "string") throw new TypeError("address must be a string");
      return sharesOf(keys).keepSignInWallet({
        organizationId: organizationIdOf(params),
        address: params.address,
      });
    case "beginSplit":
      return sharesOf(keys).beginSplit({ organizationId: organizationIdOf(params) });
    case "acceptSplitShare":
      if (typeof params?.userShare !== "string") throw new TypeError("userShare must be a string");
      return sharesOf(keys).acceptSplitShare({
        organizationId: organizationIdOf(params),
        walletId: walletIdOf(params),
        userShare: params.userShare,
      });
    case "hasUserShare":
      return sharesOf(keys).hasUserShare({
        organizationId: organizationIdOf(params),
        ...(typeof params?.walletId === "string" ? { walletId: params.walletId } : {}),
      });
    case "walletShares":
      return sharesOf(keys).walletShares({ organizationId: organizationIdOf(params) });
    case "protectShare": {
      const prfOutput = prfOf(params);
      return sharesOf(keys).protectShare({
        organizationId: organizationIdOf(params),
        walletId: walletIdOf(params),
        ...(prfOutput ? { prfOutput } : typeof params.code === "string" ? { code: params.code } : {}),
      });
    }
    case "restoreShare": {
      const prfOutput = prfOf(params);
      if (!params.blob || typeof params.blob !== "object") throw new TypeError("blob must be an object");
      const addresses = params.addresses;
      if (
        addresses !== undefined &&
        !(Array.isArray(addresses) && addresses.every((a) => typeof a === "string"))
      )
        throw new TypeError("addresses must be strings");
      const base = {
        organizationId: organizationIdOf(params),
        walletId: walletIdOf(params),
        blob: params.blob,
        ...(addresses ? { addresses } : {}),
      };
      if (prfOutput) return sharesOf(keys).restoreShare({ ...base, prfOutput });
      if (typeof params.code !== "string") throw new TypeError("prfOutput or code is needed");
      return sharesOf(keys).restoreShare({ ...base, code: params.code });
    }
    default:
      throw new TypeError("unknown method");
  }
}

serveParent<FrameRequest>({
  handle,
  codeOf: (error) =>
    error instanceof KeyStoreError
      ? error.code
      : error instanceof ConfirmationRejected
        ? "USER_REJECTED"
        : error instanceof Error && error.name === "RecoveryError"
          ? "RECOVERY_FAILED"
          : error instanceof Error && error.name === "UserShareError"
            ? "USER_SHARE_INVALID"
            : undefined,
  // Where keys live is settled before the first request: storage refused means memory, said up front.
  async ready(parentOrigin) {
    const storage = await keysOf(parentOrigin).storage();
    return {
      storage: storage.kind,
      ...(storage.storageError ? { storageError: storage.storageError } : {}),
    };
  },
});
