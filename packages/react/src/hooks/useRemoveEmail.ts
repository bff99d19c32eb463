import { useLatchkeyContext } from "../context";
import { removeEmailMutationOptions } from "../query/email";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

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
  const m = useAuthMethodMutation(removeEmailMutationOptions(signer));
  return { ...m, removeEmail: () => m.mutate(), removeEmailAsync: () => m.mutateAsync() };
}
