import { defineActivity } from "../defineActivity";
import { signOne, withSigningKey } from "../signing";

/** `sign_raw_payloads`: several payloads, one account, one activity. */
export const signRawPayloads = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  signingRequest: () => ({ kind: "rawPayload" }),
  pure: (ctx, { caller, params }) =>
    withSigningKey(ctx, { orgId: caller.user.orgId, signWith: params.signWith }, (curve, key) => ({
      signatures: params.payloads.map((payload) =>
        signOne(curve, key, { payload, encoding: params.encoding, hashFunction: params.hashFunction }),
      ),
    })),
});
