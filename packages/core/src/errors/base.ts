import type { CoreErrorCode } from "./codes";

/**
 * Base of every error @latchkey/core throws; `code` is stable and machine-readable (one of
 * {@link CoreErrorCode}), `message` is for people.
 */
export class LatchkeyError<C extends CoreErrorCode = CoreErrorCode> extends Error {
  override name = "LatchkeyError";
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /**
   * Follows the `cause` chain (as viem's `BaseError.walk`): the first error `fn` accepts (or null), or
   * without `fn` the innermost cause.
   *
   * @example
   * const apiError = error.walk((e) => e instanceof SignerApiError);
   */
  walk(fn?: (error: unknown) => boolean): unknown {
    return walk(this, fn);
  }
}

function walk(error: unknown, fn?: (error: unknown) => boolean): unknown {
  if (fn?.(error)) return error;
  const cause =
    typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined;
  if (cause !== undefined) return walk(cause, fn);
  return fn ? null : error;
}

/**
 * A coded error's message with what the wallet, node or service said: `base: details`, or, when the base
 * text is a sentence already, `base Details: details` (never "canceled.: …").
 */
export function messageWithDetails(base: string, details: string | undefined): string {
  if (!details) return base;
  return /[.!?]$/.test(base) ? `${base} Details: ${details}` : `${base}: ${details}`;
}
