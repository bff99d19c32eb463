import type { OauthError } from "../errors";
import type { SignerBase } from "../signer/types";

/** What `preparePopupOauth` resolves with. */
export type PreparePopupOauthReturnType = undefined;
/** The errors `preparePopupOauth` may throw (discriminate on `name` and `code`). */
export type PreparePopupOauthErrorType = OauthError<"OAUTH_UNSUPPORTED" | "OAUTH_POPUP_BLOCKED">;

/**
 * Opens the sign-in pop-up now, blank, for the next pop-up `authenticate({type: "oauth"})` or
 * `addOauthProvider`: call it in the click handler when `enablePopupOauth` is off (browsers only let a
 * click open a window).
 *
 * @example
 * button.onclick = () => {
 *   preparePopupOauth(signer);
 *   void authenticate(signer, { type: "oauth", authProviderId: "google", mode: "popup" });
 * };
 */
export function preparePopupOauth(signer: SignerBase): PreparePopupOauthReturnType {
  signer._internal.authMethods.oauth.preparePopup(signer);
}
