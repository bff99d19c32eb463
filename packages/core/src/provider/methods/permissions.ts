import { revokeGrant } from "../../actions/revokeGrant";
import { requireUser } from "../../signer/guards";
import { invalidParams, ProviderRpcError, ProviderRpcErrorCode } from "../errors";
import { erc7715Answer, grantFromErc7715 } from "../grantPermissions";
import type { MethodHandler } from "../types";
import { asObject } from "./params";

/**
 * `wallet_grantPermissions` (ERC-7715) `[request]`: the permissions a dapp asks for, as a Latchkey grant to
 * the app's backend (provider/grantPermissions.ts maps them). The user consents first: the provider's
 * `requestGrant` option shows them what is granted (the modal's consent step) and makes the grant, or
 * rejects (4001). Answers `{expiry, chainId, grantedPermissions, permissionsContext}`, the context being
 * the grant's id, what the app's backend signs under. Without `requestGrant` (no consent to ask): 4200.
 */
export const walletGrantPermissions: MethodHandler = async (ctx, params) => {
  const requestGrant = ctx.options.requestGrant;
  if (!requestGrant)
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNSUPPORTED_METHOD,
      "wallet_grantPermissions needs the provider's requestGrant option (the consent step that shows the user what is granted)",
    );
  await requireUser(ctx.signer);
  const asked = grantFromErc7715(params[0], ctx.chainId());
  let grant: Awaited<ReturnType<typeof requestGrant>>;
  try {
    grant = await requestGrant(asked.permissions);
  } catch (error) {
    throw new ProviderRpcError(ProviderRpcErrorCode.USER_REJECTED, "The user did not grant the permissions", {
      cause: error,
    });
  }
  return erc7715Answer(grant, asked);
};

/**
 * `wallet_revokePermissions` `[{permissionsContext}]`: revokes the grant `wallet_grantPermissions`
 * answered (its `permissionsContext`); from then on nothing is signed under it. Answers null.
 */
export const walletRevokePermissions: MethodHandler = async (ctx, params) => {
  const request = asObject(params[0], "the revocation");
  const context = request.permissionsContext;
  if (typeof context !== "string" || context.length === 0)
    throw invalidParams("permissionsContext (the grant's id, from wallet_grantPermissions) is required");
  await revokeGrant(ctx.signer, { grantId: context });
  return null;
};
