import { defineActivity } from "../defineActivity";
import { loadSigningAccount, signOne } from "../signing";

/** `sign_raw_payloads`: several payloads, one account, one activity. */
export const signRawPayloads = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  async pure(ctx, { caller, params }) {
    const { curve, privateKey } = await loadSigningAccount(ctx, {
      orgId: caller.user.orgId,
      signWith: params.signWith,
    });
    try {
      return {
        signatures: params.payloads.map((payload) =>
          signOne(curve, privateKey, {
            payload,
            encoding: params.encoding,
            hashFunction: params.hashFunction,
          }),
        ),
      };
    } finally {
      privateKey.fill(0);
    }
  },
});
