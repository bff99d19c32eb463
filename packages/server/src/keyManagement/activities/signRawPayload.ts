import { defineActivity } from "../defineActivity";
import { loadSigningAccount, signOne } from "../signing";

/** `sign_raw_payload`: one signature with one of the organisation's accounts. */
export const signRawPayload = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  async pure(ctx, { caller, params }) {
    const { curve, privateKey } = await loadSigningAccount(ctx, {
      orgId: caller.user.orgId,
      signWith: params.signWith,
    });
    try {
      return signOne(curve, privateKey, params);
    } finally {
      privateKey.fill(0);
    }
  },
});
