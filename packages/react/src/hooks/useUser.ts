import type { SignerState, User } from "@latchkey/core";
import { useSignerState } from "./useSignerState";

const selectUser = (state: SignerState) => state.user;

/**
 * The signed-in user (EVM address, Solana address, email...) or null; re-renders on any change of it.
 *
 * @example
 * const user = useUser();
 * return user ? <code>{user.address}</code> : null;
 */
export function useUser(): User | null {
  return useSignerState(selectUser, null);
}
