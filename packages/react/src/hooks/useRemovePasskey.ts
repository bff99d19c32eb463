import { stepUpMethodsOf } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { removePasskeyMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Removes one of the signed-in user's passkeys; refused with LAST_AUTH_METHOD when it is their only way
 * to sign in. The session stays. It needs a fresh sign-in: `stepUpMethods` lists what the user can
 * confirm with when the service asks, and the call is made again with `stepUp`.
 *
 * @example
 * const { removePasskey } = useRemovePasskey();
 * <button onClick={() => removePasskey({ authenticatorId })}>Remove</button>
 */
export function useRemovePasskey() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(removePasskeyMutationOptions(signer));
  return {
    ...m,
    removePasskey: m.mutate,
    removePasskeyAsync: m.mutateAsync,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(m.error),
  };
}
