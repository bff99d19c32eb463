import { type AuthenticateParams, type AuthenticateResult, type Signer, toViemAccount } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";
import type { Hex, SignableMessage, TypedData, TypedDataDefinition } from "viem";

/**
 * Mutation options over the core actions (wagmi's pattern): each hook is `useMutation` of one of these,
 * so the same options work with any TanStack Query adapter.
 */

/** Sign-in parameters: the core's, plus passkeys (typed here until the core's union carries them). */
export type AuthenticateVariables =
  | AuthenticateParams
  | { type: "passkey"; createNew?: boolean; email?: string };

export function authenticateMutationOptions(
  signer: Signer,
): MutationOptions<AuthenticateResult, Error, AuthenticateVariables> {
  return {
    mutationKey: ["latchkey", "authenticate"],
    mutationFn: (params) => signer.authenticate(params as AuthenticateParams),
  };
}

export function logoutMutationOptions(signer: Signer): MutationOptions<void, Error, void> {
  return { mutationKey: ["latchkey", "logout"], mutationFn: () => signer.disconnect() };
}

export interface SignMessageVariables {
  message: SignableMessage;
}

export function signMessageMutationOptions(
  signer: Signer,
): MutationOptions<Hex, Error, SignMessageVariables> {
  return {
    mutationKey: ["latchkey", "signMessage"],
    mutationFn: ({ message }) => toViemAccount(signer).signMessage({ message }),
  };
}

export type SignTypedDataVariables = TypedDataDefinition<TypedData | Record<string, unknown>, string>;

export function signTypedDataMutationOptions(
  signer: Signer,
): MutationOptions<Hex, Error, SignTypedDataVariables> {
  return {
    mutationKey: ["latchkey", "signTypedData"],
    mutationFn: (typedData) => toViemAccount(signer).signTypedData(typedData as never),
  };
}
