import type { ServiceContext } from "../context";
import { newMnemonic } from "../crypto/wallet";
import type { Db } from "../db";
import { prefixed, prepared, rowSlots } from "../db/prepared";
import type { WalletAccountsTable } from "../db/schema";

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

// Every sign-up runs these: compiled once (db/prepared.ts).
const USER_COLUMNS = ["id", "org_id", "app_id", "email", "unverified_email", "created_at"] as const;
const WALLET_COLUMNS = ["id", "org_id", "user_id", "name", "sealed_mnemonic", "created_at"] as const;
const ACCOUNT_COLUMNS = [
  "id",
  "wallet_id",
  "org_id",
  "curve",
  "path",
  "address_format",
  "address",
  "address_key",
  "public_key",
  "sealed_private_key",
  "created_at",
] as const satisfies readonly (keyof WalletAccountsTable)[];
const insertUserRow = prepared((db, $) => db.insertInto("users").values(rowSlots($, USER_COLUMNS)));
const insertWalletRow = prepared((db, $) => db.insertInto("wallets").values(rowSlots($, WALLET_COLUMNS)));
const insertAccountRows = new Map<number, ReturnType<typeof prepared>>();
function insertAccounts(count: number) {
  let q = insertAccountRows.get(count);
  if (!q) {
    q = prepared((db, $) =>
      db
        .insertInto("wallet_accounts")
        .values(Array.from({ length: count }, (_, i) => rowSlots($, ACCOUNT_COLUMNS, `${i}.`))),
    );
    insertAccountRows.set(count, q);
  }
  return q;
}

export async function insertUser(db: Db, user: Awaited<ReturnType<typeof prepareUser>>): Promise<NewUser> {
  await insertUserRow(db, { ...user.user });
  await insertWalletRow(db, { ...user.wallet });
  const accounts: Record<string, unknown> = {};
  for (const [i, a] of user.accounts.entries()) Object.assign(accounts, prefixed(a, `${i}.`));
  await insertAccounts(user.accounts.length)(db, accounts);
  return user.result;
}

const userByEmail = prepared((db, $) =>
  db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email"])
    .where("app_id", "=", $("appId"))
    .where("email", "=", $("email")),
);

export async function findUserByEmail(db: Db, appId: string, email: string): Promise<UserRecord | null> {
  const [row] = await userByEmail(db, { appId, email });
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
