import { wireTimestamp } from "../toActivity";
import { defineQuery } from "./defineQuery";

export const listWallets = defineQuery({
  name: "list_wallets",
  async run(ctx, { caller }) {
    const rows = await ctx.db
      .selectFrom("wallets")
      .select(["id", "name", "created_at"])
      .where("org_id", "=", caller.user.orgId)
      .execute();
    return {
      wallets: rows.map((w) => ({
        walletId: w.id,
        walletName: w.name,
        createdAt: wireTimestamp(w.created_at),
        updatedAt: wireTimestamp(w.created_at),
        exported: false,
        imported: false,
      })),
    };
  },
});
