import { wireTimestamp } from "../toActivity";
import { defineQuery } from "./defineQuery";

export const listWallets = defineQuery({
  name: "list_wallets",
  async run(ctx, { caller }) {
    const rows = await ctx.db
      .selectFrom("wallets")
      .select(["id", "name", "created_at", "imported"])
      .where("org_id", "=", caller.user.orgId)
      // Newest first: after an import, the imported wallet (the one the app uses) is the first.
      .orderBy("created_at", "desc")
      .execute();
    return {
      wallets: rows.map((w) => ({
        walletId: w.id,
        walletName: w.name,
        createdAt: wireTimestamp(w.created_at),
        updatedAt: wireTimestamp(w.created_at),
        exported: false,
        imported: w.imported != null,
      })),
    };
  },
});
