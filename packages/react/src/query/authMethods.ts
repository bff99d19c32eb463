import {
  type AddMfaParameters,
  type AddMfaReturnType,
  type AddOauthProviderParameters,
  type AddOauthProviderReturnType,
  type AddPasskeyParameters,
  type AddPasskeyReturnType,
  addMfa,
  addOauthProvider,
  addPasskey,
  getMfaFactors,
  type ListAuditEventsReturnType,
  type ListAuthMethodsReturnType,
  listAuditEvents,
  listAuthMethods,
  type MultiFactor,
  type RemoveMfaParameters,
  type RemoveOauthProviderParameters,
  type RemovePasskeyParameters,
  removeMfa,
  removeOauthProvider,
  removePasskey,
  type Signer,
  type VerifyMfaParameters,
  verifyMfa,
} from "@latchkey/core";
import type { MutationOptions, UseQueryOptions } from "@tanstack/react-query";

/** The key every query of the user's sign-in methods sits under (a change invalidates them all). */
export const AUTH_METHODS_KEY = ["latchkey", "authMethods"] as const;
/** The key of the user's second factors (under AUTH_METHODS_KEY: they are sign-in methods too). */
export const MFA_FACTORS_KEY = [...AUTH_METHODS_KEY, "mfa"] as const;

/**
 * Query options of the signed-in user's sign-in methods (email, passkeys, social providers, second
 * factors), per user.
 *
 * @example
 * const q = useQuery(authMethodsQueryOptions(signer, user.userId));
 */
export function authMethodsQueryOptions(
  signer: Signer,
  userId: string | undefined,
): UseQueryOptions<ListAuthMethodsReturnType, Error, ListAuthMethodsReturnType, readonly unknown[]> {
  return {
    queryKey: [...AUTH_METHODS_KEY, userId ?? null],
    queryFn: () => listAuthMethods(signer),
    retry: false,
  };
}

/**
 * Query options of the signed-in user's second factors (authenticator apps), per user.
 *
 * @example
 * const q = useQuery(mfaFactorsQueryOptions(signer, user.userId));
 */
export function mfaFactorsQueryOptions(
  signer: Signer,
  userId: string | undefined,
): UseQueryOptions<MultiFactor[], Error, MultiFactor[], readonly unknown[]> {
  return {
    queryKey: [...MFA_FACTORS_KEY, userId ?? null],
    queryFn: () => getMfaFactors(signer),
    retry: false,
  };
}

/**
 * Query options of the signed-in user's security events (newest first), per user. Under the sign-in
 * methods' key: a change of a method adds an event, so it is fetched again with them.
 *
 * @example
 * const q = useQuery(auditEventsQueryOptions(signer, user.userId, 20));
 */
export function auditEventsQueryOptions(
  signer: Signer,
  userId: string | undefined,
  limit: number | undefined,
): UseQueryOptions<ListAuditEventsReturnType, Error, ListAuditEventsReturnType, readonly unknown[]> {
  return {
    queryKey: [...AUTH_METHODS_KEY, "audit", userId ?? null, limit ?? null],
    queryFn: () => listAuditEvents(signer, limit === undefined ? {} : { limit }),
    retry: false,
  };
}

/** Mutation options of `addPasskey`: a new passkey for the signed-in user; answers its authenticator id. */
export function addPasskeyMutationOptions(
  signer: Signer,
): MutationOptions<AddPasskeyReturnType, Error, AddPasskeyParameters | undefined> {
  return {
    mutationKey: ["latchkey", "addPasskey"],
    mutationFn: (params) => addPasskey(signer, params ?? {}),
  };
}

/** Mutation options of `removePasskey` (never the last way to sign in). */
export function removePasskeyMutationOptions(
  signer: Signer,
): MutationOptions<undefined, Error, RemovePasskeyParameters> {
  return {
    mutationKey: ["latchkey", "removePasskey"],
    mutationFn: (params) => removePasskey(signer, params),
  };
}

/** Mutation options of `addOauthProvider`: links a social sign-in to the signed-in user. */
export function addOauthProviderMutationOptions(
  signer: Signer,
): MutationOptions<AddOauthProviderReturnType, Error, AddOauthProviderParameters> {
  return {
    mutationKey: ["latchkey", "addOauthProvider"],
    mutationFn: (params) => addOauthProvider(signer, params),
  };
}

/** Mutation options of `removeOauthProvider` (never the last way to sign in). */
export function removeOauthProviderMutationOptions(
  signer: Signer,
): MutationOptions<undefined, Error, RemoveOauthProviderParameters> {
  return {
    mutationKey: ["latchkey", "removeOauthProvider"],
    mutationFn: (params) => removeOauthProvider(signer, params),
  };
}

/** Mutation options of `addMfa`: a new, not yet verified, authenticator-app factor and its otpauth URL. */
export function addMfaMutationOptions(
  signer: Signer,
): MutationOptions<AddMfaReturnType, Error, AddMfaParameters | undefined> {
  return { mutationKey: ["latchkey", "addMfa"], mutationFn: (params) => addMfa(signer, params) };
}

/** Mutation options of `verifyMfa`: the first code from the app turns the factor on. */
export function verifyMfaMutationOptions(
  signer: Signer,
): MutationOptions<MultiFactor[], Error, VerifyMfaParameters> {
  return { mutationKey: ["latchkey", "verifyMfa"], mutationFn: (params) => verifyMfa(signer, params) };
}

/** Mutation options of `removeMfa`. */
export function removeMfaMutationOptions(
  signer: Signer,
): MutationOptions<MultiFactor[], Error, RemoveMfaParameters> {
  return { mutationKey: ["latchkey", "removeMfa"], mutationFn: (params) => removeMfa(signer, params) };
}
