import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";

/**
 * Forward-only, versioned migrations. Each runs in its own transaction; names sort in order.
 * Types are chosen to mean the same on SQLite and PostgreSQL (bigint = integer affinity in SQLite).
 */
const migrations: Record<string, Migration> = {
  "0001_initial": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("apps")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("org_id", "text", (c) => c.notNull().unique())
        .addColumn("email_mode", "text", (c) => c.notNull())
        .addColumn("allowed_origins", "text", (c) => c.notNull())
        .addColumn("magic_link_urls", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("app_api_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
        .addColumn("key_hash", "text", (c) => c.notNull().unique())
        .addColumn("key_prefix", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema
        .createTable("data_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("wrapped_key", "text", (c) => c.notNull())
        .addColumn("kek_id", "text", (c) => c.notNull())
        .addColumn("active", "integer", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("users")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().unique())
        .addColumn("app_id", "text", (c) => c.notNull().references("apps.id"))
        .addColumn("email", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("users_app_email", ["app_id", "email"])
        .execute();
      await db.schema
        .createTable("wallets")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("sealed_mnemonic", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("wallets_org").on("wallets").column("org_id").execute();
      await db.schema
        .createTable("wallet_accounts")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("wallet_id", "text", (c) => c.notNull().references("wallets.id"))
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("curve", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("address_format", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("address_key", "text", (c) => c.notNull())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("sealed_private_key", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("wallet_accounts_org_address", ["org_id", "address_key"])
        .execute();
      await db.schema
        .createIndex("wallet_accounts_wallet")
        .on("wallet_accounts")
        .column("wallet_id")
        .execute();
      await db.schema
        .createTable("api_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema.createIndex("api_keys_public_key").on("api_keys").column("public_key").execute();
      await db.schema.createIndex("api_keys_user").on("api_keys").column("user_id").execute();
      await db.schema
        .createTable("otps")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("code_hash", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("activities")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("fingerprint", "text", (c) => c.notNull().unique())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("intent", "text", (c) => c.notNull())
        .addColumn("result", "text", (c) => c.notNull())
        .addColumn("failure", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("activities_org")
        .on("activities")
        .columns(["org_id", "created_at"])
        .execute();
      await db.schema
        .createTable("rate_limits")
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("window_start", "bigint", (c) => c.notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("audit_log")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text")
        .addColumn("user_id", "text")
        .addColumn("event", "text", (c) => c.notNull())
        .addColumn("ip", "text")
        .addColumn("details", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "0002_passkeys_mfa": {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("apps").addColumn("webauthn_rp_id", "text").execute();
      await db.schema.alterTable("apps").addColumn("webauthn_origins", "text").execute();
      // An email given at passkey sign-up is unproven: kept for contact, never used to sign in.
      await db.schema.alterTable("users").addColumn("unverified_email", "text").execute();
      await db.schema
        .createTable("authenticators")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("org_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
        .addColumn("credential_id", "text", (c) => c.notNull())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("counter", "bigint", (c) => c.notNull())
        .addColumn("transports", "text", (c) => c.notNull())
        .addColumn("aaguid", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_used_at", "bigint")
        .addUniqueConstraint("authenticators_app_credential", ["app_id", "credential_id"])
        .execute();
      await db.schema.createIndex("authenticators_user").on("authenticators").column("user_id").execute();
      await db.schema
        .createTable("mfa_factors")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("sealed_secret", "text", (c) => c.notNull())
        .addColumn("verified_at", "bigint")
        .addColumn("last_step", "bigint", (c) => c.notNull())
        .addColumn("failed_attempts", "integer", (c) => c.notNull())
        .addColumn("locked_until", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("mfa_factors_user").on("mfa_factors").column("user_id").execute();
      await db.schema
        .createTable("mfa_challenges")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("stamp_replays")
        .addColumn("hash", "text", (c) => c.primaryKey())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "0003_oauth": {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("apps").addColumn("oauth_providers", "text").execute();
      await db.schema.alterTable("apps").addColumn("oauth_redirect_urls", "text").execute();
      await db.schema
        .createTable("oauth_requests")
        .addColumn("request_key", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("nonce", "text", (c) => c.notNull())
        .addColumn("sealed_verifier", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addColumn("id_token_hash", "text")
        .addColumn("linked_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("oauth_requests_token")
        .on("oauth_requests")
        .column("id_token_hash")
        .execute();
      await db.schema
        .createTable("user_oauth_providers")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
        .addColumn("provider_name", "text", (c) => c.notNull())
        .addColumn("issuer", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("email", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("user_oauth_providers_identity", ["app_id", "issuer", "subject"])
        .execute();
      await db.schema
        .createIndex("user_oauth_providers_user")
        .on("user_oauth_providers")
        .column("user_id")
        .execute();
    },
  },
  "0004_oauth_link_binding": {
    async up(db: Kysely<unknown>) {
      // A linking prompt's ID token may only be linked to the account the prompt was for.
      await db.schema.alterTable("oauth_requests").addColumn("link_org_id", "text").execute();
    },
  },
  "0005_oauth_fetch_only": {
    async up(db: Kysely<unknown>) {
      // A token fetched while signed in (FETCHED_ID_TOKEN_ONLY) may only be linked from the browser
      // whose target key it was fetched for.
      await db.schema
        .alterTable("oauth_requests")
        .addColumn("fetch_only", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  "0006_contact_otps": {
    async up(db: Kysely<unknown>) {
      // Codes that prove an address before it becomes a sign-in method (init-otp / verify-otp); the
      // verification token they yield is single use (token_used_at).
      await db.schema
        .createTable("contact_otps")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("contact", "text", (c) => c.notNull())
        .addColumn("code_hash", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addColumn("token_used_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "0007_app_jwt": {
    async up(db: Kysely<unknown>) {
      // An app's backend may authenticate with a JWT (issuer and JWKS per app) instead of an API key.
      await db.schema.alterTable("apps").addColumn("jwt_config", "text").execute();
    },
  },
  "0008_app_locale": {
    async up(db: Kysely<unknown>) {
      // The language of the app's mails (codes, links, security notices).
      await db.schema
        .alterTable("apps")
        .addColumn("locale", "text", (c) => c.notNull().defaultTo("en"))
        .execute();
    },
  },
  "0009_sponsorship": {
    async up(db: Kysely<unknown>) {
      // Gas sponsorship: the app's policies, the service's own keys (the paymaster signer, sealed), and
      // what sponsored operations reserved, per operation and per day.
      await db.schema.alterTable("apps").addColumn("sponsorship", "text").execute();
      await db.schema
        .createTable("service_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("purpose", "text", (c) => c.notNull().unique())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("sealed_key", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("sponsorship_spend")
        .addColumn("chain_id", "bigint", (c) => c.notNull())
        .addColumn("sender", "text", (c) => c.notNull())
        .addColumn("nonce", "text", (c) => c.notNull())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("policy_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("wei", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sponsorship_spend_pk", ["chain_id", "sender", "nonce"])
        .execute();
      await db.schema
        .createIndex("sponsorship_spend_app_day")
        .on("sponsorship_spend")
        .columns(["app_id", "day"])
        .execute();
      await db.schema
        .createTable("sponsorship_usage")
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("policy_id", "text", (c) => c.notNull())
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("operations", "integer", (c) => c.notNull())
        .addColumn("wei", "text", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sponsorship_usage_pk", ["app_id", "policy_id", "scope", "day"])
        .execute();
    },
  },
  "0010_siwe_nonces": {
    async up(db: Kysely<unknown>) {
      // Sign-In with Ethereum: single-use nonces, each bound to the app, the address (lower case) and the
      // chain it was issued for. used_at is set the first time the nonce is presented, whatever the outcome.
      await db.schema
        .createTable("siwe_nonces")
        .addColumn("nonce", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("chain_id", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .execute();
      await db.schema.createIndex("siwe_nonces_expires_at").on("siwe_nonces").column("expires_at").execute();
    },
  },
  "0011_solana_sponsorship": {
    async up(db: Kysely<unknown>) {
      // Solana fee sponsorship: one row per transaction the fee payer signed, keyed by its signature (the
      // transaction id). Daily totals go to sponsorship_usage like the EVM policies' (fee lamports in `wei`).
      await db.schema
        .createTable("solana_sponsorship_spend")
        .addColumn("signature", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("policy_id", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("user_address", "text", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("fee_lamports", "text", (c) => c.notNull())
        .addColumn("lamports", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("solana_sponsorship_spend_app_day")
        .on("solana_sponsorship_spend")
        .columns(["app_id", "day"])
        .execute();
    },
  },
  "0012_session_signed_in_by": {
    async up(db: Kysely<unknown>) {
      // How a session key came to be (email_code, magic_link, passkey, totp, oauth; null for keys made by
      // another key): wallet export counts a session from a recent email, passkey or TOTP sign-in as fresh.
      await db.schema.alterTable("api_keys").addColumn("signed_in_by", "text").execute();
    },
  },
  "0013_signing_policy": {
    async up(db: Kysely<unknown>) {
      // The app's signing policy (config.ts signingPolicy: rules, rawPayloads, admin keys) as JSON; null
      // when the app has none and every signature is made.
      await db.schema.alterTable("apps").addColumn("signing_policy", "text").execute();
    },
  },
  "0014_audit_by_user": {
    async up(db: Kysely<unknown>) {
      // A user's own security events, newest first (query list_audit_events).
      await db.schema
        .createIndex("audit_log_user_created")
        .on("audit_log")
        .columns(["user_id", "created_at"])
        .execute();
    },
  },
  "0015_oauth_display_name": {
    async up(db: Kysely<unknown>) {
      // The person's name as a provider gave it at sign-in (Apple gives it on the first authorisation
      // only): kept on the link, and on the request until a linking prompt completes.
      await db.schema.alterTable("user_oauth_providers").addColumn("name", "text").execute();
      await db.schema.alterTable("oauth_requests").addColumn("display_name", "text").execute();
    },
  },
  "0016_wallet_reserve": {
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
  },
  "0017_held_activities": {
    async up(db: Kysely<unknown>) {
      // What waits for an admin (`latchkey activity list`, approvals), oldest first, without reading every
      // signature ever made: a partial index holds only the held rows, so the signing path's inserts
      // (completed or refused) never touch it.
      await db.schema
        .createIndex("activities_held")
        .on("activities")
        .column("created_at")
        .where(sql.ref("status"), "=", sql.lit("ACTIVITY_STATUS_CONSENSUS_NEEDED"))
        .execute();
    },
  },
  "0018_sign_in_method_proof": {
    async up(db: Kysely<unknown>) {
      // Which step-up proof (a fresh sign-in) each passkey and second factor was added with (issue 30): one
      // added without is never accepted as a proof. Rows from before are kept as "legacy" and still
      // count (passkeys from a passkey sign-up among them); an unverified factor must be asked for again.
      await db.schema.alterTable("authenticators").addColumn("added_with", "text").execute();
      await db.schema.alterTable("mfa_factors").addColumn("added_with", "text").execute();
      await sql`UPDATE authenticators SET added_with = 'legacy'`.execute(db);
      await sql`UPDATE mfa_factors SET added_with = 'legacy' WHERE verified_at IS NOT NULL`.execute(db);
    },
  },
  "0019_smart_account_kind": {
    async up(db: Kysely<unknown>) {
      // The smart-account kind a user first used ("7702" or "4337", users/smartAccountKind.ts), so that
      // changing an app's default never moves an existing user's address. Users from before 7702 accounts
      // could only have had a SimpleAccount: they stay "4337".
      await db.schema.alterTable("users").addColumn("smart_account_kind", "text").execute();
      await sql`UPDATE users SET smart_account_kind = '4337'`.execute(db);
    },
  },
  "0021_webhooks": {
    async up(db: Kysely<unknown>) {
      // Webhooks (features/webhooks): endpoints from the apps' config, the outbox of events written with
      // their audit rows, one delivery per event and endpoint (claimed with a lease), and every attempt.
      await db.schema
        .createTable("webhook_endpoints")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("events", "text", (c) => c.notNull())
        .addColumn("sealed_secret", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("removed_at", "bigint")
        .addUniqueConstraint("webhook_endpoints_app_url", ["app_id", "url"])
        .execute();
      await db.schema
        .createTable("webhook_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("event_id", "text", (c) => c.notNull().references("webhook_events.id"))
        .addColumn("endpoint_id", "text", (c) =>
          c.notNull().references("webhook_endpoints.id").onDelete("cascade"),
        )
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull())
        .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
        .addColumn("give_up_at", "bigint", (c) => c.notNull())
        .addColumn("leased_until", "bigint")
        .addColumn("lease_owner", "text")
        .addColumn("last_status_code", "integer")
        .addColumn("last_error", "text")
        .addColumn("delivered_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("webhook_deliveries_event_endpoint", ["event_id", "endpoint_id"])
        .execute();
      // What is due, without reading what was delivered long ago: only pending rows are in it.
      await db.schema
        .createIndex("webhook_deliveries_due")
        .on("webhook_deliveries")
        .column("next_attempt_at")
        .where(sql.ref("status"), "=", sql.lit("pending"))
        .execute();
      // The delivery log of an app, newest first.
      await db.schema
        .createIndex("webhook_deliveries_app_created")
        .on("webhook_deliveries")
        .columns(["app_id", "created_at"])
        .execute();
      await db.schema
        .createTable("webhook_attempts")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("delivery_id", "text", (c) =>
          c.notNull().references("webhook_deliveries.id").onDelete("cascade"),
        )
        .addColumn("app_id", "text", (c) => c.notNull())
        .addColumn("attempt", "integer", (c) => c.notNull())
        .addColumn("started_at", "bigint", (c) => c.notNull())
        .addColumn("duration_ms", "integer", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("error", "text")
        .execute();
      await db.schema
        .createIndex("webhook_attempts_delivery")
        .on("webhook_attempts")
        .columns(["delivery_id", "started_at"])
        .execute();
    },
  },
  "0022_admin": {
    async up(db: Kysely<unknown>) {
      // The admin API (features/admin): a user an app admin disabled can neither sign in nor sign; the
      // lists it pages through, each on an index (users of an app by sign-up, a user by address, held or
      // failed activities by time, an app's security log by time).
      await db.schema.alterTable("users").addColumn("disabled_at", "bigint").execute();
      await db.schema
        .createIndex("users_app_created")
        .on("users")
        .columns(["app_id", "created_at", "id"])
        .execute();
      await db.schema
        .createIndex("wallet_accounts_address_key")
        .on("wallet_accounts")
        .column("address_key")
        .execute();
      await db.schema
        .createIndex("activities_created")
        .on("activities")
        .columns(["created_at", "id"])
        .execute();
      await db.schema
        .createIndex("activities_status_created")
        .on("activities")
        .columns(["status", "created_at", "id"])
        .execute();
      await db.schema
        .createIndex("audit_log_app_created")
        .on("audit_log")
        .columns(["app_id", "created_at", "id"])
        .execute();
    },
  },
  "0023_retention": {
    async up(db: Kysely<unknown>) {
      // The retention sweeper (limits/retention.ts) deletes in small batches, each picking its rows through
      // one of these indexes: a batch reads what it deletes, never the whole table. Activities are swept
      // through activities_status_created, security events by app through this index on time alone.
      const byColumn = async (table: string, column: string) =>
        db.schema.createIndex(`${table}_${column}`).on(table).column(column).execute();
      for (const table of ["otps", "contact_otps", "mfa_challenges", "oauth_requests", "stamp_replays"])
        await byColumn(table, "expires_at");
      await byColumn("rate_limits", "window_start");
      await byColumn("audit_log", "created_at");
      await byColumn("webhook_events", "created_at");
      for (const table of ["sponsorship_spend", "solana_sponsorship_spend", "sponsorship_usage"])
        await byColumn(table, "day");
      // Only session keys expire and are swept: API keys are not in it.
      await db.schema
        .createIndex("api_keys_session_expires")
        .on("api_keys")
        .column("expires_at")
        .where(sql.ref("kind"), "=", sql.lit("session"))
        .execute();
      // Deliveries done with (delivered or failed), by their last change; pending ones are not in it.
      await db.schema
        .createIndex("webhook_deliveries_done")
        .on("webhook_deliveries")
        .column("updated_at")
        .where(sql.ref("status"), "<>", sql.lit("pending"))
        .execute();
    },
  },
};

class StaticProvider implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
