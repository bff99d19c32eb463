import { stepUpMethodsOf } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { removeOauthProviderMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Unlinks a social sign-in (by its `providerId` from `useAuthMethods`); refused with LAST_AUTH_METHOD
 * when it is the user's only way to sign in. It needs a fresh sign-in: `stepUpMethods` lists what the
 * user can confirm with when the service asks, and the call is made again with `stepUp`.
 *
 * @example
 * const { removeOauthProvider } = useRemoveOauthProvider();
 * <button onClick={() => removeOauthProvider({ providerId })}>Unlink</button>
 */
export function useRemoveOauthProvider() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(removeOauthProviderMutationOptions(signer));
  return {
    ...m,
    removeOauthProvider: m.mutate,
    removeOauthProviderAsync: m.mutateAsync,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(m.error),
  };
}
