import { LatchkeyError } from "./base";
import { type PasskeyErrorCode, PasskeyErrorMessages } from "./codes";

/**
 * A passkey ceremony that did not produce a credential. `code` says why; the browser's own error, when
 * there is one, is the `cause`.
 */
export class PasskeyError<C extends PasskeyErrorCode = PasskeyErrorCode> extends LatchkeyError<C> {
  override name: string = "PasskeyError";
  constructor(code: C, options?: { cause?: unknown; message?: string }) {
    super(code, options?.message ?? PasskeyErrorMessages[code], options);
  }
}

/**
 * The user dismissed the passkey prompt, it timed out, or the app aborted it (WebAuthn's
 * `NotAllowedError` / `AbortError`). Its `name` ("PasskeyCancelledError") and code survive in the
 * signer's state error, so a UI can go back to its initial step instead of showing a failure.
 */
export class PasskeyCancelledError extends PasskeyError<"PASSKEY_CANCELLED"> {
  override name = "PasskeyCancelledError" as const;
  constructor(options?: { cause?: unknown }) {
    super("PASSKEY_CANCELLED", options);
  }
}

/**
 * Whether `error` (or a signer state error `{name}`) is a cancelled passkey prompt.
 *
 * @example
 * if (isPasskeyCancelled(error)) return; // the user dismissed the prompt
 */
export function isPasskeyCancelled(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "PasskeyCancelledError"
  );
}
