import type { Signer } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/**
 * Mutation options of `signer.disconnect` (signs out this tab and the others).
 *
 * @example
 * const m = useMutation(logoutMutationOptions(signer));
 */
export function logoutMutationOptions(signer: Signer): MutationOptions<void, Error, void> {
  return { mutationKey: ["latchkey", "logout"], mutationFn: () => signer.disconnect() };
}
