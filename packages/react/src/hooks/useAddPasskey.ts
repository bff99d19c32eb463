import { type AddPasskeyParameters, stepUpMethodsOf } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { addPasskeyMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Adds a passkey to the signed-in user (the browser's passkey prompt); `useAuthMethods` shows it at once.
 * It needs a fresh sign-in: when the service asks, `stepUpMethods` lists what the user can confirm with,
 * and the passkey is added again with `stepUp`.
 *
 * @example
 * const { addPasskey, isPending, error } = useAddPasskey();
 * <button onClick={() => addPasskey()} disabled={isPending}>Add a passkey</button>
 */
export function useAddPasskey() {
  const { signer } = useLatchkeyContext();
  const m = useAuthMethodMutation(addPasskeyMutationOptions(signer));
  return {
    ...m,
    addPasskey: (params?: AddPasskeyParameters) => m.mutate(params),
    addPasskeyAsync: (params?: AddPasskeyParameters) => m.mutateAsync(params),
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(m.error),
  };
}
