import type { ListAuthMethodsReturnType } from "@latchkey/core";
import { useQuery } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { authMethodsQueryOptions } from "../query/authMethods";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";
import { useUser } from "./useUser";

/** What `useAuthMethods` answers. */
export interface UseAuthMethodsResult {
  /** The user's email, passkeys, social providers and second factors; undefined while loading or signed out. */
  authMethods: ListAuthMethodsReturnType | undefined;
  isLoading: boolean;
  error: Error | null;
  /** Fetches them again (the management hooks do it after each change). */
  refetch: () => Promise<unknown>;
}

/**
 * The signed-in user's ways to sign in. Fetched once per user, and again after any change made through
 * `useSetEmail`, `useRemoveEmail`, `useAddPasskey`, `useRemovePasskey`, `useAddOauthProvider`,
 * `useRemoveOauthProvider` or `useMfa`.
 *
 * @example
 * const { authMethods } = useAuthMethods();
 * return <ul>{authMethods?.passkeys.map((p) => <li key={p.authenticatorId}>{p.name}</li>)}</ul>;
 */
export function useAuthMethods(): UseAuthMethodsResult {
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const q = useQuery(
    { ...authMethodsQueryOptions(signer, user?.userId), enabled: Boolean(user) },
    useLatchkeyQueryClient(),
  );
  return {
    authMethods: user ? q.data : undefined,
    isLoading: Boolean(user) && q.isPending,
    error: q.error,
    refetch: q.refetch,
  };
}
