import { base58 } from "@scure/base";
import type { Keyring } from "../crypto/keyring";
import { deriveAccounts, ed25519PublicKey, evmAddressFromPrivateKey } from "../crypto/wallet";
import type { Db } from "../db";
import type { SealedAccount } from "../db/schema";

/** What `verifyBackup` checked: counts per kind, and each failure by row id only (never a secret). */
export interface VerifyBackupReturnType {
  checked: Record<string, number>;
  failures: { kind: string; id: string; reason: string }[];
}

/**
 * Opens every sealed secret of a database (a restored backup) with `keyring`, re-derives every wallet's
 * accounts from its mnemonic and compares them with the stored rows, and checks every user has a whole
 * wallet. Nothing secret leaves this function: failures name the row.
 * Throws when the master key is not the one the data keys were wrapped with.
 *
 * @example
 * const { failures } = await verifyBackup({ db, keyring: new Keyring(db, masterKey) });
 */
export async function verifyBackup(params: { db: Db; keyring: Keyring }): Promise<VerifyBackupReturnType> {
  const { db, keyring } = params;
  const checked: Record<string, number> = {};
  const failures: VerifyBackupReturnType["failures"] = [];
  const count = (kind: string) => {
    checked[kind] = (checked[kind] ?? 0) + 1;
  };
  const fail = (kind: string, id: string, reason: string) => failures.push({ kind, id, reason });
  const open = async (sealed: string, context: string): Promise<Buffer | undefined> => {
    try {
      return await keyring.open(sealed, context);
    } catch {
      return undefined;
    }
  };

  const dataKeys = await db.selectFrom("data_keys").select(["id", "kek_id"]).execute();
  if (dataKeys.some((k) => k.kek_id !== keyring.kekId))
    throw new Error("Wrong master key: this database's data keys were wrapped by a different master key");
  checked.data_keys = dataKeys.length;

  // A wallet: its mnemonic opens, re-derives exactly its stored accounts, and each account's key opens to
  // the derived key.
  const checkWallet = async (kind: string, id: string, sealedMnemonic: string, accounts: SealedAccount[]) => {
    count(kind);
    if (sealedMnemonic === "") return checkKeyWallet(kind, id, accounts);
    const mnemonic = await open(sealedMnemonic, `wallet:${id}`);
    if (!mnemonic) return fail(kind, id, "the mnemonic does not open");
    const derived = deriveAccounts(mnemonic.toString("utf8"));
    mnemonic.fill(0);
    if (accounts.length !== derived.length)
      fail(kind, id, `${accounts.length} account(s) stored, ${derived.length} derived`);
    for (const d of derived) {
      const row = accounts.find((a) => a.path === d.path && a.address_format === d.addressFormat);
      if (!row) fail(kind, id, `no ${d.addressFormat} account`);
      else if (row.address !== d.address || row.public_key !== d.publicKey || row.curve !== d.curve)
        fail("wallet_account", row.id, "the address does not re-derive from the wallet's mnemonic");
      else {
        count("wallet_account");
        const key = await open(row.sealed_private_key, `wallet_account:${row.id}`);
        if (!key) fail("wallet_account", row.id, "the private key does not open");
        else if (!key.equals(Buffer.from(d.privateKey)))
          fail("wallet_account", row.id, "the private key is not the derived one");
        key?.fill(0);
      }
      d.privateKey.fill(0);
    }
  };

  // A wallet imported as a key (no phrase): one account, whose key opens and gives its stored address.
  const checkKeyWallet = async (kind: string, id: string, accounts: SealedAccount[]) => {
    if (accounts.length !== 1)
      return fail(kind, id, `${accounts.length} account(s) stored for one imported key`);
    const row = accounts[0] as SealedAccount;
    count("wallet_account");
    const key = await open(row.sealed_private_key, `wallet_account:${row.id}`);
    if (!key) return fail("wallet_account", row.id, "the private key does not open");
    const address =
      row.address_format === "ADDRESS_FORMAT_ETHEREUM"
        ? evmAddressFromPrivateKey(key).address
        : base58.encode(ed25519PublicKey(key));
    key.fill(0);
    if (address !== row.address) fail("wallet_account", row.id, "the address is not the imported key's");
  };

  // A split wallet (docs/split-custody.md): the service holds only its share, which must open; the
  // accounts cannot be re-derived without the user's share, so each must have its place in the secret
  // and no sealed key.
  const checkSplitWallet = async (
    id: string,
    sealedShare: string | null | undefined,
    rows: SealedAccount[],
  ) => {
    count("split_wallet");
    const share = sealedShare ? await open(sealedShare, `wallet_share:${id}`) : undefined;
    if (!share) fail("split_wallet", id, "the service share does not open");
    share?.fill(0);
    if (rows.length === 0) fail("split_wallet", id, "no accounts stored");
    for (const row of rows) {
      count("wallet_account");
      if (row.secret_index == null || row.sealed_private_key !== "")
        fail(
          "wallet_account",
          row.id,
          "a split wallet's account has no place in its secret, or a sealed key",
        );
    }
  };

  const accounts = await db.selectFrom("wallet_accounts").selectAll().execute();
  const byWallet = new Map<string, SealedAccount[]>();
  for (const a of accounts) byWallet.set(a.wallet_id, [...(byWallet.get(a.wallet_id) ?? []), a]);
  const wallets = await db
    .selectFrom("wallets")
    .select(["id", "user_id", "sealed_mnemonic", "custody", "sealed_service_share"])
    .execute();
  for (const w of wallets) {
    if (w.custody === "split") await checkSplitWallet(w.id, w.sealed_service_share, byWallet.get(w.id) ?? []);
    else await checkWallet("wallet", w.id, w.sealed_mnemonic, byWallet.get(w.id) ?? []);
  }
  const walletIds = new Set(wallets.map((w) => w.id));
  for (const a of accounts)
    if (!walletIds.has(a.wallet_id)) fail("wallet_account", a.id, "its wallet is missing");

  // No half-written user: each one has a wallet (and the wallet its accounts, above). A split-custody
  // app's user has none until their key holder makes it.
  const owners = new Set(wallets.map((w) => w.user_id));
  const users = await db
    .selectFrom("users")
    .leftJoin("apps", "apps.id", "users.app_id")
    .select(["users.id", "apps.custody"])
    .execute();
  for (const u of users) {
    count("user");
    if (!owners.has(u.id) && u.custody !== "split") fail("user", u.id, "the user has no wallet");
  }

  for (const r of await db.selectFrom("wallet_reserve").selectAll().execute())
    await checkWallet("wallet_reserve", r.id, r.sealed_mnemonic, JSON.parse(r.accounts) as SealedAccount[]);

  const secrets: { kind: string; id: string; sealed: string; context: string }[] = [];
  for (const f of await db.selectFrom("mfa_factors").select(["id", "sealed_secret"]).execute())
    secrets.push({ kind: "mfa_factor", id: f.id, sealed: f.sealed_secret, context: `mfa_factor:${f.id}` });
  for (const k of await db.selectFrom("service_keys").select(["id", "sealed_key"]).execute())
    secrets.push({ kind: "service_key", id: k.id, sealed: k.sealed_key, context: `service_key:${k.id}` });
  for (const o of await db.selectFrom("oauth_requests").select(["request_key", "sealed_verifier"]).execute())
    secrets.push({
      kind: "oauth_request",
      id: o.request_key,
      sealed: o.sealed_verifier,
      context: `oauth_request:${o.request_key}`,
    });
  for (const app of await db.selectFrom("apps").select(["id", "oauth_providers"]).execute()) {
    const providers = JSON.parse(app.oauth_providers ?? "[]") as {
      id: string;
      sealedClientSecret?: string;
      apple?: { sealedPrivateKey: string };
    }[];
    for (const p of providers) {
      const id = `${app.id}:${p.id}`;
      if (p.sealedClientSecret)
        secrets.push({
          kind: "oauth_client",
          id,
          sealed: p.sealedClientSecret,
          context: `oauth_client:${id}`,
        });
      if (p.apple)
        secrets.push({
          kind: "oauth_apple_key",
          id,
          sealed: p.apple.sealedPrivateKey,
          context: `oauth_apple_key:${id}`,
        });
    }
  }
  for (const s of secrets) {
    count(s.kind);
    const plain = await open(s.sealed, s.context);
    if (!plain) fail(s.kind, s.id, "does not open");
    plain?.fill(0);
  }
  return { checked, failures };
}
