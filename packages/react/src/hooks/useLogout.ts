import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { logoutMutationOptions } from "../query/logout";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Signs out everywhere (this tab and the others).
 *
 * @example
 * const { logout } = useLogout();
 * <button onClick={logout}>Log out</button>
 */
export function useLogout() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(logoutMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, logout: () => m.mutate(), logoutAsync: () => m.mutateAsync() };
}
