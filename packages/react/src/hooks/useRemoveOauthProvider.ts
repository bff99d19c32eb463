import { useLatchkeyContext } from "../context";
import { removeOauthProviderMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Unlinks a social sign-in (by its `providerId` from `useAuthMethods`); refused with LAST_AUTH_METHOD
 * when it is the user's only way to sign in.
 *
 * @example
 * const { removeOauthProvider } = useRemoveOauthProvider();
 * <button onClick={() => removeOauthProvider({ providerId })}>Unlink</button>
 */
export function useRemoveOauthProvider() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(removeOauthProviderMutationOptions(signer));
  return { ...m, removeOauthProvider: m.mutate, removeOauthProviderAsync: m.mutateAsync };
}
