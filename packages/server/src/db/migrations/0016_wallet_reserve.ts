import type { Kysely, Migration } from "kysely";

export const m0016: Migration = {
  async up(db: Kysely<unknown>) {
    // Wallets derived ahead of sign-ups while the service is idle (users/walletReserve.ts), sealed like
    // every wallet. A sign-up deletes one row inside its own transaction: one owner each, none lost.
    await db.schema
      .createTable("wallet_reserve")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("sealed_mnemonic", "text", (c) => c.notNull())
      // The accounts as JSON: ids, curve, path, address, public key and sealed private key.
      .addColumn("accounts", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
