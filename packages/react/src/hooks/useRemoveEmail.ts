import { type RemoveEmailParameters, stepUpMethodsOf } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { removeEmailMutationOptions } from "../query/email";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Turns off email sign-in for the signed-in user; refused with LAST_AUTH_METHOD when it is their only
 * way in (add a passkey or a social provider first). It needs a fresh sign-in: `stepUpMethods` lists
 * what the user can confirm with when the service asks, and the call is made again with `stepUp`.
 *
 * @example
 * const { removeEmail, error } = useRemoveEmail();
 * <button onClick={() => removeEmail()}>Stop signing in by email</button>
 */
export function useRemoveEmail() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(removeEmailMutationOptions(signer));
  return {
    ...m,
    removeEmail: (params?: RemoveEmailParameters) => m.mutate(params),
    removeEmailAsync: (params?: RemoveEmailParameters) => m.mutateAsync(params),
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(m.error),
  };
}
