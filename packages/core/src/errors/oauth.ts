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
