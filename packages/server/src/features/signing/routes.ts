import { signerApi } from "@latchkey/protocol/schemas";
import { stampedRoute } from "../../http/route";
import { signPayloadAnswer } from "../../keyManagement/activities/signRawPayload";
import { defineFeature } from "../defineFeature";

/**
 * `/v1/sign-payload`: a stamped sign_raw_payload, answered as one hex signature r‖s‖v; a signature the
 * app's signing policy refuses answers 403 POLICY_DENIED, one it holds for an admin 409
 * ACTIVITY_CONSENSUS_NEEDED (both with `data.activityId`).
 */
export const signingFeature = defineFeature({
  name: "signing",
  register(app, ctx) {
    stampedRoute(app, ctx, signerApi.signPayload, async ({ caller, submit }) =>
      signPayloadAnswer(ctx, { orgId: caller.user.orgId, activity: await submit() }),
    );
  },
});
