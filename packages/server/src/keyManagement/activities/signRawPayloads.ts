import { assertJsonDepth } from "../../http/jsonDepth";
import { defineActivity } from "../defineActivity";
import { isStructuredEncoding, payloadSigningRequest } from "../policies/structuredPayloads";
import { signOne, withSigningKey } from "../signing";

/** `sign_raw_payloads`: several payloads, one account, one activity; the policy reads each. */
export const signRawPayloads = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  signingRequest: ({ params }) => ({
    kind: "several",
    requests: params.payloads.map((payload) => {
      // A JSON payload is bounded before the policy parses and hashes it.
      if (isStructuredEncoding(params.encoding)) assertJsonDepth(payload, "payload");
      return payloadSigningRequest({
        signWith: params.signWith,
        payload,
        encoding: params.encoding,
        hashFunction: params.hashFunction,
      });
    }),
  }),
  pure: (ctx, { caller, params, share }) =>
    withSigningKey(ctx, { orgId: caller.user.orgId, signWith: params.signWith, share }, (curve, key) => ({
      signatures: params.payloads.map((payload) =>
        signOne(curve, key, { payload, encoding: params.encoding, hashFunction: params.hashFunction }),
      ),
    })),
});
