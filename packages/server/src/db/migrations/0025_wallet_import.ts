import type { Kysely, Migration } from "kysely";

export const m0025: Migration = {
  async up(db: Kysely<unknown>) {
    // Wallet import (keyManagement/activities/importWallet.ts): one P-256 key per import, made by
    // init_import_wallet, sealed like every secret, spent once (`used_at`, and the sealed key blanked).
    await db.schema
      .createTable("import_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("org_id", "text", (c) => c.notNull())
      // Uncompressed hex: the encrypted bundle names the key it was sealed to.
      .addColumn("public_key", "text", (c) => c.notNull().unique())
      .addColumn("sealed_private_key", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("import_keys_user").on("import_keys").column("user_id").execute();
    // What a wallet came from: null (made by the service), "mnemonic", "evm_private_key" or
    // "solana_private_key". A key's wallet has no phrase: its sealed_mnemonic is empty.
    await db.schema.alterTable("wallets").addColumn("imported", "text").execute();
    // Pregenerated users (features/userImport): made by the app's backend before the person signs in,
    // claimed by their first sign-in; `external_id` is the app's own id for them, one user per id.
    await db.schema.alterTable("users").addColumn("external_id", "text").execute();
    await db.schema.alterTable("users").addColumn("pregenerated_at", "bigint").execute();
    await db.schema.alterTable("users").addColumn("claimed_at", "bigint").execute();
    await db.schema
      .createIndex("users_app_external_id")
      .unique()
      .on("users")
      .columns(["app_id", "external_id"])
      .execute();
    // Bulk import (latchkey users import) finds the users it made by unverified email too.
    await db.schema
      .createIndex("users_app_unverified_email")
      .on("users")
      .columns(["app_id", "unverified_email"])
      .execute();
  },
};
