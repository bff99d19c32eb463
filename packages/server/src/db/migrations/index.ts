import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { m0001 } from "./0001_initial";
import { m0002 } from "./0002_passkeys_mfa";
import { m0003 } from "./0003_oauth";
import { m0004 } from "./0004_oauth_link_binding";
import { m0005 } from "./0005_oauth_fetch_only";
import { m0006 } from "./0006_contact_otps";
import { m0007 } from "./0007_app_jwt";
import { m0008 } from "./0008_app_locale";
import { m0009 } from "./0009_sponsorship";
import { m0010 } from "./0010_siwe_nonces";
import { m0011 } from "./0011_solana_sponsorship";
import { m0012 } from "./0012_session_signed_in_by";
import { m0013 } from "./0013_signing_policy";
import { m0014 } from "./0014_audit_by_user";
import { m0015 } from "./0015_oauth_display_name";
import { m0016 } from "./0016_wallet_reserve";
import { m0017 } from "./0017_held_activities";
import { m0018 } from "./0018_sign_in_method_proof";
import { m0019 } from "./0019_smart_account_kind";
import { m0021 } from "./0021_webhooks";
import { m0022 } from "./0022_admin";
import { m0023 } from "./0023_retention";
import { m0024 } from "./0024_grants";
import { m0025 } from "./0025_wallet_import";
import { m0026 } from "./0026_admin_console";
import { m0027 } from "./0027_grants_imports_indexes";
import { m0028 } from "./0028_signup_session";
import { m0029 } from "./0029_webhook_private_network";
import { m0030 } from "./0030_split_custody";
import { m0031 } from "./0031_held_approvals";
import { m0032 } from "./0032_split_conversion";
import { m0033 } from "./0033_grant_user_share";
import { m0034 } from "./0034_signing_previews";
import { m0035 } from "./0035_grant_token_spends";
import { m0036 } from "./0036_confirmation_keys";

/**
 * Forward-only, versioned migrations, one file each. Each runs in its own transaction; names sort in order.
 * Types are chosen to mean the same on SQLite and PostgreSQL (bigint = integer affinity in SQLite).
 */
const migrations: Record<string, Migration> = {
  "0001_initial": m0001,
  "0002_passkeys_mfa": m0002,
  "0003_oauth": m0003,
  "0004_oauth_link_binding": m0004,
  "0005_oauth_fetch_only": m0005,
  "0006_contact_otps": m0006,
  "0007_app_jwt": m0007,
  "0008_app_locale": m0008,
  "0009_sponsorship": m0009,
  "0010_siwe_nonces": m0010,
  "0011_solana_sponsorship": m0011,
  "0012_session_signed_in_by": m0012,
  "0013_signing_policy": m0013,
  "0014_audit_by_user": m0014,
  "0015_oauth_display_name": m0015,
  "0016_wallet_reserve": m0016,
  "0017_held_activities": m0017,
  "0018_sign_in_method_proof": m0018,
  "0019_smart_account_kind": m0019,
  "0021_webhooks": m0021,
  "0022_admin": m0022,
  "0023_retention": m0023,
  "0024_grants": m0024,
  "0025_wallet_import": m0025,
  "0026_admin_console": m0026,
  "0027_grants_imports_indexes": m0027,
  "0028_signup_session": m0028,
  "0029_webhook_private_network": m0029,
  "0030_split_custody": m0030,
  "0031_held_approvals": m0031,
  "0032_split_conversion": m0032,
  "0033_grant_user_share": m0033,
  "0034_signing_previews": m0034,
  "0035_grant_token_spends": m0035,
  "0036_confirmation_keys": m0036,
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
