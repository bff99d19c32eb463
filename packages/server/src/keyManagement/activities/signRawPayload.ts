import { defineActivity } from "../defineActivity";
import { signOne, withSigningKey } from "../signing";

/** `sign_raw_payload`: one signature with one of the organisation's accounts. */
export const signRawPayload = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  signingRequest: () => ({ kind: "rawPayload" }),
  pure: (ctx, { caller, params }) =>
    withSigningKey(ctx, { orgId: caller.user.orgId, signWith: params.signWith }, (curve, key) =>
      signOne(curve, key, params),
    ),
});
