import { recoverySharesOf } from "../../custody/recoveryShares";
import { wireTimestamp } from "../toActivity";
import { defineQuery } from "./defineQuery";

/** Split custody: the user's recovery blobs (set_recovery_share), to restore the share on a new device. */
export const getRecoveryShares = defineQuery({
  name: "get_recovery_shares",
  async run(ctx, { caller }) {
    const shares = await recoverySharesOf(ctx.db, caller.user.orgId);
    return { recoveryShares: shares.map((s) => ({ ...s, createdAt: wireTimestamp(s.createdAt) })) };
  },
});
