import type { AddPasskeyParameters } from "@latchkey/core";
import { useLatchkeyContext } from "../context";
import { addPasskeyMutationOptions } from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";

/**
 * Adds a passkey to the signed-in user (the browser's passkey prompt); `useAuthMethods` shows it at once.
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
  };
}
