import type { GrantOperationType } from "@latchkey/protocol";
import { grantOperations, operationEnvelopeSchema, signerApi } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { splitUnsupported } from "../../custody/shareKey";
import { parseOrThrow } from "../../http/parse";
import { stampedRoute } from "../../http/route";
import { requireFreshSignIn } from "../../sessions/stepUp";
import { isSplitUser } from "../../users/userStore";
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
    stampedRoute(
      app,
      ctx,
      signerApi.createGrant,
      async ({ caller, ip }) => {
        const { permissions, ...proof } = signedParameters(caller, "OPERATION_TYPE_CREATE_GRANT");
        // Split custody: a grant would sign with the user away, so without their share (a later slice).
        if (await isSplitUser(ctx, caller.user)) throw splitUnsupported("A grant for the app's backend");
        await assertGrantCreatable(ctx, { user: caller.user, permissions });
        const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof });
        return { grant: await createGrant(ctx, { user: caller.user, permissions, ip, stepUp }) };
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
