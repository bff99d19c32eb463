import { useLatchkeyContext } from "../context";
import { addOauthProviderMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Links a social sign-in to the signed-in user, by pop-up (call it in the click handler) or by redirect
 * (the page leaves and the provider is linked when it comes back).
 *
 * @example
 * const { addOauthProvider, error } = useAddOauthProvider();
 * <button onClick={() => addOauthProvider({ authProviderId: "google", mode: "popup" })}>Link Google</button>
 */
export function useAddOauthProvider() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(addOauthProviderMutationOptions(signer));
  return { ...m, addOauthProvider: m.mutate, addOauthProviderAsync: m.mutateAsync };
}
