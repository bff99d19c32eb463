import type { SignerState, SignerStateError } from "@latchkey/core";
import { useSignerState } from "./useSignerState";

const selectError = (state: SignerState) => state.error;

/**
 * The last sign-in error of the signer (`{name, code, message}`; `code` is stable, for branching), or null.
 *
 * @example
 * const error = useAuthError();
 * if (error?.code === "OAUTH_CANCELLED") return null;
 */
export function useAuthError(): SignerStateError | null {
  return useSignerState(selectError, null);
}
