import { useLatchkeyContext } from "../context";
import { removePasskeyMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Removes one of the signed-in user's passkeys; refused with LAST_AUTH_METHOD when it is their only way
 * to sign in. The session stays.
 *
 * @example
 * const { removePasskey } = useRemovePasskey();
 * <button onClick={() => removePasskey({ authenticatorId })}>Remove</button>
 */
export function useRemovePasskey() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(removePasskeyMutationOptions(signer));
  return { ...m, removePasskey: m.mutate, removePasskeyAsync: m.mutateAsync };
}
