import type { ServiceContext } from "../context";
import { newMnemonic } from "../crypto/wallet";
import type { Db } from "../db";

export interface UserRecord {
  id: string;
  orgId: string;
  appId: string;
  email: string | null;
}

export interface NewUser extends UserRecord {
  walletId: string;
  address: string;
  solanaAddress: string;
}

/**
 * Builds a user's wallet outside any transaction (the key derivation is the costly part), ready to be
 * written in one go by `insertUser` so that a user never exists without a wallet. `email` is a proven
 * sign-in address; `unverifiedEmail` is contact data only and never signs anyone in.
 *
 * @example
 * const prepared = await prepareUser(ctx, { appId: app.id, email: null, unverifiedEmail: req.email });
 */
export async function prepareUser(
  ctx: Pick<ServiceContext, "keyring" | "now" | "random" | "wallets">,
  params: { appId: string; email: string | null; unverifiedEmail?: string | null },
) {
  const { keyring, random } = ctx;
  const { appId, email } = params;
  const now = ctx.now();
  const user = {
    id: random.uuid(),
    org_id: random.uuid(),
    app_id: appId,
    email,
    unverified_email: params.unverifiedEmail ?? null,
    created_at: now,
  };
  const mnemonic = newMnemonic();
  const walletId = random.uuid();
  const wallet = {
    id: walletId,
    org_id: user.org_id,
    user_id: user.id,
    name: "Default wallet",
    sealed_mnemonic: keyring.seal(new TextEncoder().encode(mnemonic), `wallet:${walletId}`),
    created_at: now,
  };
  const accounts = (await ctx.wallets.derive(mnemonic)).map((a) => {
    const id = random.uuid();
    const row = {
      id,
      wallet_id: walletId,
      org_id: user.org_id,
      curve: a.curve,
      path: a.path,
      address_format: a.addressFormat,
      address: a.address,
      address_key: a.addressFormat === "ADDRESS_FORMAT_ETHEREUM" ? a.address.toLowerCase() : a.address,
      public_key: a.publicKey,
      sealed_private_key: keyring.seal(a.privateKey, `wallet_account:${id}`),
      created_at: now,
    };
    a.privateKey.fill(0);
    return row;
  });
  const evm = accounts.find((a) => a.address_format === "ADDRESS_FORMAT_ETHEREUM");
  const sol = accounts.find((a) => a.address_format === "ADDRESS_FORMAT_SOLANA");
  const result: NewUser = {
    id: user.id,
    orgId: user.org_id,
    appId,
    email,
    walletId,
    address: evm?.address ?? "",
    solanaAddress: sol?.address ?? "",
  };
  return { user, wallet, accounts, result };
}

export async function insertUser(
  db: Db,
  prepared: Awaited<ReturnType<typeof prepareUser>>,
): Promise<NewUser> {
  await db.insertInto("users").values(prepared.user).execute();
  await db.insertInto("wallets").values(prepared.wallet).execute();
  await db.insertInto("wallet_accounts").values(prepared.accounts).execute();
  return prepared.result;
}

export async function findUserByEmail(db: Db, appId: string, email: string): Promise<UserRecord | null> {
  const row = await db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email"])
    .where("app_id", "=", appId)
    .where("email", "=", email)
    .executeTakeFirst();
  return row ? { id: row.id, orgId: row.org_id, appId: row.app_id, email: row.email } : null;
}

export async function findUserByOrg(db: Db, orgId: string): Promise<UserRecord | null> {
  const row = await db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email"])
    .where("org_id", "=", orgId)
    .executeTakeFirst();
  return row ? { id: row.id, orgId: row.org_id, appId: row.app_id, email: row.email } : null;
}

/** The user's primary addresses: the first EVM and the first Solana account. */
export async function userAddresses(
  db: Db,
  orgId: string,
): Promise<{ address: string; solanaAddress?: string }> {
  const rows = await db
    .selectFrom("wallet_accounts")
    .select(["address", "address_format"])
    .where("org_id", "=", orgId)
    .orderBy("created_at")
    .execute();
  const evm = rows.find((r) => r.address_format === "ADDRESS_FORMAT_ETHEREUM");
  const sol = rows.find((r) => r.address_format === "ADDRESS_FORMAT_SOLANA");
  return { address: evm?.address ?? "", ...(sol ? { solanaAddress: sol.address } : {}) };
}
