import { type Grant, listGrants, type RevokeGrantParameters, revokeGrant, type Signer } from "@latchkey/core";
import type { MutationOptions, UseQueryOptions } from "@tanstack/react-query";

/** The key every query of the user's grants sits under (a grant made or revoked invalidates them). */
export const GRANTS_KEY = ["latchkey", "grants"] as const;

/**
 * Query options of the permissions the signed-in user granted the app's backend, per user.
 *
 * @example
 * const q = useQuery(grantsQueryOptions(signer, user.userId));
 */
export function grantsQueryOptions(
  signer: Signer,
  userId: string | undefined,
): UseQueryOptions<Grant[], Error, Grant[], readonly unknown[]> {
  return { queryKey: [...GRANTS_KEY, userId ?? null], queryFn: () => listGrants(signer), retry: false };
}

/** Mutation options that revoke one of the user's grants. */
export function revokeGrantMutationOptions(
  signer: Signer,
): MutationOptions<Grant, Error, RevokeGrantParameters> {
  return { mutationFn: (params) => revokeGrant(signer, params) };
}
