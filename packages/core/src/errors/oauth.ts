import { isOauthProviderErrorCode } from "@latchkey/protocol";
import { LatchkeyError } from "./base";
import { type OauthErrorCode, OauthErrorMessages } from "./codes";

/**
 * A social sign-in that did not complete. `code` says why; OAUTH_FAILED carries the service's or the
 * provider's message (the pop-up's or the redirect's `error`).
 */
export class OauthError<
  C extends OauthErrorCode | "OAUTH_FAILED" = OauthErrorCode | "OAUTH_FAILED",
> extends LatchkeyError<C> {
  override name: string = "OauthError";
  constructor(code: C, message?: string, options?: { cause?: unknown }) {
    super(code, message ?? OauthErrorMessages[code as OauthErrorCode] ?? "OAuth sign-in failed", options);
  }
}

/**
 * The user closed the sign-in pop-up (or the app aborted the sign-in): 'OAuth cancelled'. Its `name`
 * ("OauthCancelledError") and code survive in the signer's state error, so a UI can go back to its
 * initial step instead of showing a failure.
 */
export class OauthCancelledError extends OauthError<"OAUTH_CANCELLED"> {
  override name = "OauthCancelledError" as const;
  constructor(options?: { cause?: unknown }) {
    super("OAUTH_CANCELLED", undefined, options);
  }
}

/**
 * Whether `error` (or a signer state error `{name}`) is a cancelled social sign-in.
 *
 * @example
 * if (isOauthCancelled(error)) return; // the user closed the pop-up
 */
export function isOauthCancelled(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "OauthCancelledError"
  );
}

/**
 * The error a pop-up's or a redirect's `error` stands for. A provider's refusal arrives as its code only
 * (the service never passes the provider's text on): OAUTH_PROVIDER_ERROR with a sentence the user can
 * act on, the code kept at the end for support. Anything else is the service's own message (OAUTH_FAILED).
 *
 * @example
 * oauthAnswerError("temporarily_unavailable").message; // "The sign-in provider is unavailable right now. Try again later. (temporarily_unavailable)"
 */
export function oauthAnswerError(error: string | undefined): OauthError {
  if (!error) return new OauthError("OAUTH_FAILED", "OAuth sign-in failed");
  if (!isOauthProviderErrorCode(error)) return new OauthError("OAUTH_FAILED", error);
  const sentence =
    error === "server_error" || error === "temporarily_unavailable"
      ? "The sign-in provider is unavailable right now. Try again later."
      : error === "login_required" ||
          error === "interaction_required" ||
          error === "consent_required" ||
          error === "account_selection_required"
        ? "The sign-in provider needs you to sign in or consent there first. Try again."
        : `${OauthErrorMessages.OAUTH_PROVIDER_ERROR}.`;
  return new OauthError("OAUTH_PROVIDER_ERROR", `${sentence} (${error})`);
}
