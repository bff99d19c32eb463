import type { Grant } from "@latchkey/core";
import { useQuery } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { grantsQueryOptions } from "../query/grants";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";
import { useUser } from "./useUser";

/** What `useGrants` answers. */
export interface UseGrantsResult {
  /** Newest first; undefined while loading or signed out. */
  grants: Grant[] | undefined;
  isLoading: boolean;
  error: Error | null;
  refetch: () => Promise<unknown>;
}

/**
 * The permissions the signed-in user granted the app's backend (active, revoked or expired), with what
 * each allows and how much of it was used; fetched again after a grant is made or revoked here.
 *
 * @example
 * const { grants } = useGrants();
 * const { revokeGrant } = useRevokeGrant();
 * return grants?.filter((g) => g.status === "active").map((g) => (
 *   <button key={g.grantId} onClick={() => revokeGrant({ grantId: g.grantId })}>Revoke</button>
 * ));
 */
export function useGrants(): UseGrantsResult {
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const q = useQuery(
    { ...grantsQueryOptions(signer, user?.userId), enabled: Boolean(user) },
    useLatchkeyQueryClient(),
  );
  return {
    grants: user ? q.data : undefined,
    isLoading: Boolean(user) && q.isPending,
    error: q.error,
    refetch: q.refetch,
  };
}
