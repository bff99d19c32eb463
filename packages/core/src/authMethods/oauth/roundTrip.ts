import type { OauthPopupMessage } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import { OauthCancelledError, OauthError } from "../../errors";
import type { PopupClaim, SignerBase } from "../../signer/types";
import { readAuthUrlParams } from "../../signer/urlParams";
import type { OauthParams } from "../../types/oauth";
import { redirectToOauth, waitForPopupMessage } from "./popup";
import { buildOauthUrl, sha256Hex } from "./url";

/** The window social sign-in needs (pop-up, messages, navigation), or null outside a browser. */
export function oauthWindow(signer: SignerBase): Window | null {
  const win = signer._internal.window;
  return win && typeof (win as Partial<Window>).open === "function" ? (win as Window) : null;
}

/**
 * One round trip to the provider: the target key's hash as the nonce, prepare-oauth, the provider URL;
 * then the pop-up's message, or (redirect) leaving the page.
 */
export async function oauthRoundTrip(
  signer: SignerBase,
  params: OauthParams,
  claim: PopupClaim | undefined,
  signal: AbortSignal,
): Promise<OauthPopupMessage> {
  if (claim?.error) throw claim.error;
  const win = oauthWindow(signer);
  if (!win) throw new OauthError("OAUTH_UNSUPPORTED");
  const targetPublicKey = await signer.keyHolder.initTargetKey();
  const nonce = await sha256Hex(targetPublicKey);
  const prepared = await signer.client.call(signerRoutes.prepareOauth, { nonce });
  const callbackUrl = signer._internal.options.oauthCallbackUrl ?? `${signer.client.baseUrl}/oauth/callback`;
  const common = {
    prepared,
    targetPublicKey,
    nonce,
    callbackUrl,
    params: { ...params, expirationSeconds: params.expirationSeconds ?? signer._internal.expirationSeconds },
  };
  if (params.mode === "redirect") {
    // Back to this page by default, without a previous attempt's parameters (and no fragment).
    const here = new URL(readAuthUrlParams(win.location.href).strippedUrl ?? win.location.href);
    here.hash = "";
    const url = buildOauthUrl({ ...common, redirectUrl: params.redirectUrl ?? here.toString() });
    return redirectToOauth(win, url);
  }
  const popup = claim?.popup;
  if (!popup) throw new OauthError("OAUTH_POPUP_NOT_PREPARED");
  const url = buildOauthUrl({ ...common, openerOrigin: win.location.origin });
  if (signal.aborted || popup.closed) throw new OauthCancelledError({ cause: signal.reason });
  popup.location.href = url;
  return waitForPopupMessage({ win, popup, serviceOrigin: new URL(callbackUrl).origin, signal });
}

/** The ID token of a FETCHED_ID_TOKEN_ONLY answer. */
export function fetchedIdToken(message: OauthPopupMessage): string {
  if (message.status === "FETCHED_ID_TOKEN_ONLY" && message.idToken) return message.idToken;
  throw new OauthError("OAUTH_FAILED", message.error ?? "The provider did not return an ID token");
}
