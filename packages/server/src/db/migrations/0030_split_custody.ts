import type { Kysely, Migration } from "kysely";

export const m0030: Migration = {
  async up(db: Kysely<unknown>) {
    // Split custody (docs/split-custody.md): an app's users' wallets are made in their key holders and
    // split 2-of-2; the service keeps only its share, sealed (`wallet_share:<walletId>`).
    await db.schema
      .alterTable("apps")
      .addColumn("custody", "text", (c) => c.notNull().defaultTo("service"))
      .execute();
    // A split wallet has no sealed phrase and no sealed account keys: those columns hold "" for it
    // (they stay NOT NULL: making them nullable would rebuild SQLite's tables), and its service share
    // is here. Each account's `secret_index` is its place among the wallet secret's keys.
    await db.schema
      .alterTable("wallets")
      .addColumn("custody", "text", (c) => c.notNull().defaultTo("service"))
      .execute();
    await db.schema.alterTable("wallets").addColumn("sealed_service_share", "text").execute();
    await db.schema.alterTable("wallet_accounts").addColumn("secret_index", "integer").execute();
    // The user's share encrypted under a key only the user has (a passkey's PRF output, a recovery
    // code): the service stores it and cannot open it. One per (wallet, kind, credential); a passkey's
    // credential id, or "" for a code.
    await db.schema
      .createTable("recovery_shares")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("wallet_id", "text", (c) => c.notNull().references("wallets.id"))
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("credential_id", "text", (c) => c.notNull())
      .addColumn("blob", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("recovery_shares_wallet_kind_credential")
      .unique()
      .on("recovery_shares")
      .columns(["wallet_id", "kind", "credential_id"])
      .execute();
    await db.schema.createIndex("recovery_shares_org").on("recovery_shares").column("org_id").execute();
  },
};
