import type { Grant } from "@latchkey/core";
import type { GrantPermissionsInput } from "@latchkey/protocol";
import { useCallback } from "react";
import { useLatchkeyContext } from "../context";
import { flowInternals } from "../flow/internals";
import { requestGrantConsent } from "../flow/transitions/grant";
import { GRANTS_KEY } from "../query/grants";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Asks the signed-in user to grant the app's backend a permission: the modal opens at its consent step,
 * which lists exactly what is granted; `requestGrant` resolves with the grant when the user allows it, and
 * rejects with a `GrantDeclinedError` (code USER_REJECTED) when they decline or close the modal. Pass
 * `requestGrant` to the EIP-1193 provider (`latchkey({ requestGrant })`) and `wallet_grantPermissions`
 * (ERC-7715) asks through it too. Render `<AuthModal />` inside the provider.
 *
 * @example
 * const { requestGrant } = useGrantConsent();
 * const grant = await requestGrant({ chainIds: [8453], contracts: [game], maxOperations: 100,
 *   expiresAt: Date.now() + 86_400_000, description: "Moves in today's game" });
 * await fetch("/api/bot", { method: "POST", body: JSON.stringify({ grantId: grant.grantId }) });
 */
export function useGrantConsent() {
  const { flow } = useLatchkeyContext();
  const client = useLatchkeyQueryClient();
  const requestGrant = useCallback(
    async (permissions: GrantPermissionsInput): Promise<Grant> => {
      const grant = await requestGrantConsent(flowInternals(flow), permissions);
      await client.invalidateQueries({ queryKey: GRANTS_KEY });
      return grant;
    },
    [flow, client],
  );
  return { requestGrant };
}
