import { oauthAnswerError } from "../errors/oauth";
import { toStateError } from "./state";
import type { ReturnHandler, SignerBase } from "./types";
import { type AuthUrlParams, readAuthUrlParams, SIGNUP_URL_PARAM, type UrlWindow } from "./urlParams";

/**
 * Reads the auth parameters a flow that left the page came back with (spec §9) and strips them from the
 * address bar, so a reload does not replay them; the signup marker stays until the modal resets.
 */
export function takeReturnParams(win: UrlWindow | null): AuthUrlParams {
  if (!win) return {};
  const { params, strippedUrl } = readAuthUrlParams(win.location.href, { keep: [SIGNUP_URL_PARAM] });
  if (strippedUrl) win.history.replaceState(win.history.state, "", strippedUrl);
  return params;
}

/** `?error=…` without a session: the provider or the service refused; the app shows it on its initial step. */
const urlError: ReturnHandler = {
  name: "urlError",
  phase: "beforeSession",
  handle(signer, params) {
    if (!params.error) return;
    // A provider's refusal code gets its sentence (and code); other text stays the AuthError it was.
    const error = oauthAnswerError(params.error);
    signer.store.setState({
      error:
        error.code === "OAUTH_PROVIDER_ERROR"
          ? toStateError(error)
          : { name: "AuthError", message: params.error },
    });
  },
};

/** Every return handler, in order: the URL error first, then each auth method's own, then the others'. */
export function returnHandlers(signer: SignerBase): ReturnHandler[] {
  const { authMethods, returnHandlers: others } = signer._internal;
  return [urlError, ...Object.values(authMethods).flatMap((m) => m.returnHandlers ?? []), ...others];
}

/** Runs the handlers of one phase, one after the other. */
export async function handleReturn(
  signer: SignerBase,
  params: AuthUrlParams,
  phase: ReturnHandler["phase"],
): Promise<void> {
  for (const handler of returnHandlers(signer))
    if (handler.phase === phase) await handler.handle(signer, params);
}
