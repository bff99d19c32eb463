import type { GrantOperationType } from "@latchkey/protocol";
import { grantOperations, operationEnvelopeSchema, signerApi } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../../context";
import type { RequestShare } from "../../custody/shareKey";
import { openCheckedUserShare } from "../../custody/splitKey";
import { apiError, ErrorCode } from "../../errors";
import { parseOrThrow } from "../../http/parse";
import { stampedRoute } from "../../http/route";
import { findSigningAccount } from "../../keyManagement/signing";
import { requireFreshSignIn } from "../../sessions/stepUp";
import { isSplitUser, type UserRecord, userAddresses } from "../../users/userStore";
import { defineFeature } from "../defineFeature";
import { backendListGrants } from "./backendListGrants";
import { backendRoute } from "./backendRoute";
import { backendSignMessage, backendSignTransaction, backendSignTypedData } from "./backendSigning";
import { assertGrantCreatable, createGrant, listGrants, revokeGrant } from "./grantStore";
import { backendSendUserOperation } from "./userOperation/backendSendUserOperation";

/** The parameters of a grant change, from the body the user's session signed. */
function signedParameters<T extends GrantOperationType>(
  caller: StampedCaller,
  type: T,
): z.output<(typeof grantOperations)[T]> {
  const envelope = parseOrThrow(operationEnvelopeSchema, caller.body, "stamped body");
  const schema: z.ZodType = grantOperations[type];
  return parseOrThrow(schema, envelope.parameters, "parameters") as z.output<(typeof grantOperations)[T]>;
}

/**
 * The user share a grant keeps when the account it signs with is split: the request's share, opened for
 * this body and checked to combine to the account's key as a signature checks it (403
 * USER_SHARE_REQUIRED, 400 USER_SHARE_INVALID). None for a service wallet's grant; 404 WALLET_NOT_FOUND
 * for a split user whose wallet is not made yet (there is nothing to grant yet).
 */
async function grantUserShare(
  ctx: ServiceContext,
  user: UserRecord,
  share: RequestShare,
): Promise<Uint8Array | undefined> {
  const { address } = await userAddresses(ctx.db, user.orgId);
  if (!address) {
    if (await isSplitUser(ctx, user))
      throw apiError(
        ErrorCode.WALLET_NOT_FOUND,
        "This user's wallet is not made yet: a grant for it keeps a share of it, so the wallet comes first",
      );
    return undefined;
  }
  const account = await findSigningAccount(ctx, { orgId: user.orgId, signWith: address });
  if (!account.split) return undefined;
  return openCheckedUserShare(ctx, { curve: account.curve, split: account.split }, share);
}

/**
 * Permission grants. The user, with a stamp of their session (each change single use): creates a grant
 * for the app's backend (`/v1/grants/create`; a fresh sign-in, sessions/stepUp.ts), lists theirs (`/v1/grants/list`), revokes one
 * (`/v1/grants/revoke`). The app's backend, stamped by one of its server keys (`POST /backend/v1/*`):
 * signs messages, typed data and transactions and sends user operations for a user within a grant, and
 * lists the app's grants. Every signature is an activity naming its grant (signUnderGrant.ts).
 */
export const grantsFeature = defineFeature({
  name: "grants",
  register(app, ctx) {
    // A grant lets the backend sign while the user is away: it needs a fresh sign-in, as an export does
    // (a passkey stamp is one).
    // A split user's request carries their share (docs/split-custody.md §5.1): the grant keeps it.
    stampedRoute(
      app,
      ctx,
      signerApi.createGrant,
      async ({ body, caller, raw, ip }) => {
        const { permissions, ...proof } = signedParameters(caller, "OPERATION_TYPE_CREATE_GRANT");
        await assertGrantCreatable(ctx, { user: caller.user, permissions });
        const userShare = await grantUserShare(ctx, caller.user, {
          sealed: body.stampedRequest.userShare,
          body: raw,
        });
        try {
          const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof });
          const grant = await createGrant(ctx, {
            user: caller.user,
            permissions,
            ip,
            stepUp,
            ...(userShare ? { userShare } : {}),
          });
          return { grant };
        } finally {
          userShare?.fill(0);
        }
      },
      { passkey: { allowRootOrg: false } },
    );
    stampedRoute(app, ctx, signerApi.listGrants, async ({ caller }) => ({
      grants: await listGrants(ctx, { appId: caller.user.appId, userId: caller.user.id }),
    }));
    stampedRoute(app, ctx, signerApi.revokeGrant, async ({ caller, ip }) => {
      const { grantId } = signedParameters(caller, "OPERATION_TYPE_REVOKE_GRANT");
      return { grant: await revokeGrant(ctx, { user: caller.user, grantId, ip }) };
    });

    backendRoute(app, ctx, backendSignMessage);
    backendRoute(app, ctx, backendSignTypedData);
    backendRoute(app, ctx, backendSignTransaction);
    backendRoute(app, ctx, backendSendUserOperation);
    backendRoute(app, ctx, backendListGrants);
  },
});
