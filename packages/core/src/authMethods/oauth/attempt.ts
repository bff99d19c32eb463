import type { PopupClaim } from "../../signer/types";

/** Runs one social sign-in as the current one; see {@link createAttemptRunner}. */
export type AttemptRunner = <T>(
  claim: PopupClaim | undefined,
  userSignal: AbortSignal | undefined,
  run: (signal: AbortSignal, isCurrent: () => boolean) => Promise<T>,
) => Promise<T>;

/**
 * One pop-up at a time: a new attempt cancels the pending one (its signal aborts), and an attempt is
 * current until a newer one starts. The app's `signal` aborts the attempt too; the claimed pop-up is
 * closed when the attempt ends, however it ends.
 */
export function createAttemptRunner(): AttemptRunner {
  let pending: AbortController | undefined;
  let generation = 0;
  return async (claim, userSignal, run) => {
    pending?.abort();
    const attempt = new AbortController();
    pending = attempt;
    const mine = ++generation;
    const onAbort = () => attempt.abort(userSignal?.reason);
    if (userSignal?.aborted) onAbort();
    else userSignal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await run(attempt.signal, () => generation === mine);
    } finally {
      userSignal?.removeEventListener("abort", onAbort);
      if (claim?.popup && !claim.popup.closed) claim.popup.close();
      if (pending === attempt) pending = undefined;
    }
  };
}
