import { defineActivity } from "../defineActivity";
import { payloadSigningRequest } from "../policies/structuredPayloads";
import { signOne, withSigningKey } from "../signing";

/**
 * `sign_raw_payload`: one signature with one of the organisation's accounts. Typed data, an
 * authorization or a message (their own encodings) reach the policy parsed; a bare digest is a raw
 * payload.
 */
export const signRawPayload = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  signingRequest: ({ params }) => payloadSigningRequest(params),
  pure: (ctx, { caller, params }) =>
    withSigningKey(ctx, { orgId: caller.user.orgId, signWith: params.signWith }, (curve, key) =>
      signOne(curve, key, params),
    ),
});
