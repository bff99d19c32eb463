import type { AuthenticateParams, AuthenticateResult, Signer } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/** Sign-in parameters: email, otp, passkey or oauth (the core's `AuthenticateParams`). */
export type AuthenticateVariables = AuthenticateParams;

/**
 * Mutation options of `signer.authenticate` (wagmi's pattern: the hook is `useMutation` of these).
 *
 * @example
 * const m = useMutation(authenticateMutationOptions(signer));
 */
export function authenticateMutationOptions(
  signer: Signer,
): MutationOptions<AuthenticateResult, Error, AuthenticateVariables> {
  return {
    mutationKey: ["latchkey", "authenticate"],
    mutationFn: (params) => signer.authenticate(params),
  };
}
