import type { Kysely, Migration } from "kysely";

export const m0032: Migration = {
  async up(db: Kysely<unknown>) {
    // Moving a whole wallet to split custody (docs/split-custody.md §3.1): begin_split_wallet keeps the
    // service's share of the new split here, sealed (`wallet_pending_share:<walletId>`), until
    // complete_split_wallet proves the user holds the other share; then it becomes `sealed_service_share`
    // and this goes back to null.
    await db.schema.alterTable("wallets").addColumn("sealed_pending_share", "text").execute();
  },
};
