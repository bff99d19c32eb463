import { stepUpMethodsOf } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { addOauthProviderMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Links a social sign-in to the signed-in user, by pop-up (call it in the click handler) or by redirect
 * (the page leaves and the provider is linked when it comes back). Linking needs a fresh sign-in: when
 * the service asks, `stepUpMethods` lists what the user can confirm with; link again with `stepUp`.
 *
 * @example
 * const { addOauthProvider, error } = useAddOauthProvider();
 * <button onClick={() => addOauthProvider({ authProviderId: "google", mode: "popup" })}>Link Google</button>
 */
export function useAddOauthProvider() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(addOauthProviderMutationOptions(signer));
  return {
    ...m,
    addOauthProvider: m.mutate,
    addOauthProviderAsync: m.mutateAsync,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(m.error),
  };
}
