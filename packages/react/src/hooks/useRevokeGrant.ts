import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { AUTH_METHODS_KEY } from "../query/authMethods";
import { GRANTS_KEY, revokeGrantMutationOptions } from "../query/grants";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Revokes a permission the signed-in user granted the app's backend: nothing more is signed under it,
 * on any instance of the service. `useGrants` (and the security events) are fetched again.
 *
 * @example
 * const { revokeGrant, isPending } = useRevokeGrant();
 * <button disabled={isPending} onClick={() => revokeGrant({ grantId })}>Revoke</button>
 */
export function useRevokeGrant() {
  const { signer } = useLatchkeyContext();
  const client = useLatchkeyQueryClient();
  const m = useMutation(
    {
      ...revokeGrantMutationOptions(signer),
      onSuccess: async () => {
        await client.invalidateQueries({ queryKey: GRANTS_KEY });
        await client.invalidateQueries({ queryKey: AUTH_METHODS_KEY });
      },
    },
    client,
  );
  return { ...m, revokeGrant: m.mutate, revokeGrantAsync: m.mutateAsync };
}
