import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { removeEmailMutationOptions } from "../query/email";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Turns off email sign-in for the signed-in user; refused with LAST_AUTH_METHOD when it is their only
 * way in (add a passkey or a social provider first).
 *
 * @example
 * const { removeEmail, error } = useRemoveEmail();
 * <button onClick={() => removeEmail()}>Stop signing in by email</button>
 */
export function useRemoveEmail() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(removeEmailMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, removeEmail: () => m.mutate(), removeEmailAsync: () => m.mutateAsync() };
}
