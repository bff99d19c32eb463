import type { ServiceContext } from "../context";
import type { Db } from "../db";
import { prefixed, prepared, rowSlots } from "../db/prepared";
import type { SealedWallet, UsersTable, WalletAccountsTable } from "../db/schema";
import { sealNewWallet } from "./sealWallet";

export interface UserRecord {
  id: string;
  orgId: string;
  appId: string;
  email: string | null;
}

export interface NewUser extends UserRecord {
  /** Absent for a split-custody user: their key holder makes the wallet (create_split_wallet). */
  walletId?: string;
  address?: string;
  solanaAddress?: string;
}

/** Thrown inside a sign-up's transaction when the reserve it counted on was empty: derive, then again. */
class ReserveEmpty extends Error {}

/**
 * Makes a user with a wallet and runs `write` (the sign-up's other rows) in the same transaction, so that
 * a user never exists without a wallet. The wallet comes from the reserve when it has one
 * (users/walletReserve.ts), else it is derived before the transaction (the costly part). `email` is a
 * proven sign-in address; `unverifiedEmail` is contact data only and never signs anyone in.
 *
 * @example
 * const user = await createUser(ctx, { appId: app.id, email }, async (trx, u) => u);
 */
export async function createUser<T>(
  ctx: Pick<ServiceContext, "db" | "keyring" | "now" | "random" | "wallets" | "walletReserve">,
  params: {
    appId: string;
    email: string | null;
    unverifiedEmail?: string | null;
    /** The app's custody: a "split" app's user is made with no wallet (docs/split-custody.md §3). */
    custody?: "service" | "split";
  },
  write: (trx: Db, user: NewUser) => Promise<T>,
): Promise<T> {
  if (params.custody === "split") return createSplitUser(ctx, params, write);
  const reserve = ctx.walletReserve;
  let wallet = reserve?.likelyStocked ? null : await sealNewWallet(ctx);
  for (;;) {
    const now = ctx.now();
    const user = {
      id: ctx.random.uuid(),
      org_id: ctx.random.uuid(),
      app_id: params.appId,
      email: params.email,
      unverified_email: params.unverifiedEmail ?? null,
      created_at: now,
    };
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const owned = wallet ?? (await reserve?.claim(trx));
        if (!owned) throw new ReserveEmpty();
        return write(trx, await insertUser(trx, user, owned, now));
      });
    } catch (e) {
      if (!(e instanceof ReserveEmpty)) throw e;
      wallet = await sealNewWallet(ctx);
    }
  }
}

/**
 * A split-custody app's user: the row and the caller's rows, no wallet. No secret is made here: the
 * user's key holder makes the wallet and sends the service its share (create_split_wallet).
 */
async function createSplitUser<T>(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: { appId: string; email: string | null; unverifiedEmail?: string | null },
  write: (trx: Db, user: NewUser) => Promise<T>,
): Promise<T> {
  const now = ctx.now();
  const user = {
    id: ctx.random.uuid(),
    org_id: ctx.random.uuid(),
    app_id: params.appId,
    email: params.email,
    unverified_email: params.unverifiedEmail ?? null,
    created_at: now,
  };
  return ctx.db.transaction().execute(async (trx) => {
    await insertUserRow(trx, { ...user });
    return write(trx, { id: user.id, orgId: user.org_id, appId: user.app_id, email: user.email });
  });
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

async function insertUser(
  db: Db,
  user: Omit<UsersTable, "unverified_email"> & { unverified_email: string | null },
  wallet: SealedWallet,
  now: number,
): Promise<NewUser> {
  await insertUserRow(db, { ...user });
  await insertWalletRow(db, {
    id: wallet.id,
    org_id: user.org_id,
    user_id: user.id,
    name: "Default wallet",
    sealed_mnemonic: wallet.sealedMnemonic,
    created_at: now,
  });
  const accounts: Record<string, unknown> = {};
  for (const [i, a] of wallet.accounts.entries()) {
    Object.assign(
      accounts,
      prefixed({ ...a, wallet_id: wallet.id, org_id: user.org_id, created_at: now }, `${i}.`),
    );
  }
  await insertAccounts(wallet.accounts.length)(db, accounts);
  const evm = wallet.accounts.find((a) => a.address_format === "ADDRESS_FORMAT_ETHEREUM");
  const sol = wallet.accounts.find((a) => a.address_format === "ADDRESS_FORMAT_SOLANA");
  return {
    id: user.id,
    orgId: user.org_id,
    appId: user.app_id,
    email: user.email,
    walletId: wallet.id,
    address: evm?.address ?? "",
    solanaAddress: sol?.address ?? "",
  };
}

const userByEmail = prepared((db, $) =>
  db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email", "disabled_at"])
    .where("app_id", "=", $("appId"))
    .where("email", "=", $("email")),
);

/** The app's user with this email, with `disabledAt` set when an app admin disabled them. */
export async function findUserByEmail(
  db: Db,
  appId: string,
  email: string,
): Promise<(UserRecord & { disabledAt: number | null }) | null> {
  const [row] = await userByEmail(db, { appId, email });
  return row
    ? {
        id: row.id,
        orgId: row.org_id,
        appId: row.app_id,
        email: row.email,
        disabledAt: row.disabled_at == null ? null : Number(row.disabled_at),
      }
    : null;
}

export async function findUserByOrg(db: Db, orgId: string): Promise<UserRecord | null> {
  const row = await db
    .selectFrom("users")
    .select(["id", "org_id", "app_id", "email"])
    .where("org_id", "=", orgId)
    .executeTakeFirst();
  return row ? { id: row.id, orgId: row.org_id, appId: row.app_id, email: row.email } : null;
}

/**
 * The user's addresses in use: of each chain, the account added last — the one of the wallet made at
 * sign-up, until the user imports a wallet or a key of that chain (keyManagement/activities/importWallet.ts).
 */
export async function userAddresses(
  db: Db,
  orgId: string,
): Promise<{ address?: string; solanaAddress?: string }> {
  const rows = await db
    .selectFrom("wallet_accounts")
    .select(["address", "address_format"])
    .where("org_id", "=", orgId)
    .orderBy("created_at", "desc")
    .execute();
  const evm = rows.find((r) => r.address_format === "ADDRESS_FORMAT_ETHEREUM");
  const sol = rows.find((r) => r.address_format === "ADDRESS_FORMAT_SOLANA");
  // A split-custody user whose wallet is not made yet has no address (whoami's walletState "none").
  return { ...(evm ? { address: evm.address } : {}), ...(sol ? { solanaAddress: sol.address } : {}) };
}

/** How a user's wallet is kept, as whoami answers it (docs/split-custody.md §3–4). */
export interface UserCustody {
  custody: "split" | "service";
  walletState: "none" | "whole" | "ready";
  walletId?: string;
  recovery: ("passkey" | "code")[];
}

/**
 * Whether the user's wallet is split, or will be (a split app's user with no wallet yet): what refuses
 * the features split custody does not support yet (grants, imports).
 */
export async function isSplitUser(
  ctx: Pick<ServiceContext, "db" | "apps">,
  user: { orgId: string; appId: string },
): Promise<boolean> {
  const wallet = await ctx.db
    .selectFrom("wallets")
    .select("custody")
    .where("org_id", "=", user.orgId)
    .orderBy("created_at", "asc")
    .executeTakeFirst();
  if (wallet) return wallet.custody === "split";
  return (await ctx.apps.byId(user.appId))?.custody === "split";
}

/**
 * The user's custody: their first wallet's (a "split" wallet, or "service"), or for a user with no wallet
 * yet their app's; a whole wallet in a split app is `split` and `whole` (to be split at this sign-in);
 * and the recovery factors stored for every split wallet's user share.
 */
export async function userCustody(
  ctx: Pick<ServiceContext, "db" | "apps">,
  user: { orgId: string; appId: string; appCustody?: "service" | "split" },
): Promise<UserCustody> {
  const wallet = await ctx.db
    .selectFrom("wallets")
    .select(["id", "custody"])
    .where("org_id", "=", user.orgId)
    .orderBy("created_at", "asc")
    .executeTakeFirst();
  if (!wallet) {
    const custody = user.appCustody ?? (await ctx.apps.byId(user.appId))?.custody ?? "service";
    return { custody, walletState: "none", recovery: [] };
  }
  if (wallet.custody !== "split") {
    // A split app's user whose wallet the service still holds whole (pregenerated, imported, or made
    // before the app moved to split): their key holder splits it at this sign-in (§3.1).
    const appCustody = user.appCustody ?? (await ctx.apps.byId(user.appId))?.custody ?? "service";
    if (appCustody === "split")
      return { custody: "split", walletState: "whole", walletId: wallet.id, recovery: [] };
    return { custody: "service", walletState: "ready", walletId: wallet.id, recovery: [] };
  }
  // A factor counts when it covers every split wallet of the user: after an import into a split app
  // (docs/split-custody.md §5) the new wallet has none until the user protects again.
  const [kinds, splitWallets] = await Promise.all([
    ctx.db
      .selectFrom("recovery_shares")
      .select(["wallet_id", "kind"])
      .distinct()
      .where("org_id", "=", user.orgId)
      .execute(),
    ctx.db
      .selectFrom("wallets")
      .select("id")
      .where("org_id", "=", user.orgId)
      .where("custody", "=", "split")
      .execute(),
  ]);
  const recovery = (["passkey", "code"] as const).filter((k) =>
    splitWallets.every((w) => kinds.some((r) => r.kind === k && r.wallet_id === w.id)),
  );
  return { custody: "split", walletState: "ready", walletId: wallet.id, recovery };
}
