import type { Insertable } from "kysely";
import type { ServiceContext } from "../context";
import type { Db } from "../db";
import type { SealedWallet, UsersTable, WalletAccountsTable, WalletsTable } from "../db/schema";
import { isUniqueViolation } from "../db/uniqueViolation";
import { IMPORTED_WALLET_NAME, type ImportedWallet, sealImportedWallet } from "./importedWallet";
import type { ImportRecord } from "./importRecords";
import { sealNewWallet } from "./sealWallet";

/** What a bulk import needs: storage, sealing, derivation, and the wallet reserve to take wallets from. */
export interface UserImportContext
  extends Pick<ServiceContext, "db" | "keyring" | "random" | "now" | "wallets"> {
  /** The wallet reserve (users/walletReserve.ts), or null: then every new wallet is derived here. */
  reserve: { claimMany(trx: Db, n: number): Promise<SealedWallet[]> } | null;
}

/**
 * What became of one line: a new user, one there already (same external id or email), or why not;
 * `shared_key`: a key of its wallet is another user's (refused unless `allowSharedKeys`).
 */
export interface ImportOutcome {
  line: number;
  status: "created" | "existing" | "duplicate" | "conflict" | "shared_key";
  userId?: string;
  address?: string;
  solanaAddress?: string;
  error?: string;
  /** Made with `allowSharedKeys` although a key of its wallet is another user's too. */
  sharedKey?: true;
}

/** A batch's outcomes (in line order), and where its new wallets came from. */
export interface ImportBatchResult {
  outcomes: ImportOutcome[];
  fromReserve: number;
  derived: number;
}

interface Found {
  id: string;
  org_id: string;
}

/** Thrown inside the batch's transaction when the reserve had fewer wallets than it needs. */
class ReserveShort extends Error {
  constructor(readonly missing: number) {
    super("the wallet reserve is short");
  }
}

const ROWS_PER_INSERT = 500;
const DEFAULT_WALLET_NAME = "Default wallet";

/**
 * Imports one batch of checked lines (users/importRecords.ts) into `appId`, all or nothing: the users, their
 * wallets and accounts are written in one transaction, so a crash leaves the batch wholly there or wholly
 * absent, and running the file again skips every user already there (same external id, or same email;
 * an unverified email matches only a user an import or the backend made). New wallets come from the
 * reserve inside that transaction (each one owned once); when it runs short, the rest are derived first.
 * Key material was sealed on arrival (importRecords.ts parsed it; here it is sealed before any write).
 * A line whose wallet holds an account another user has (any app's user, or an earlier line's) is
 * refused as `shared_key`, since whoever holds either account could spend from both; with
 * `allowSharedKeys` it is made, and its outcome says `sharedKey`.
 *
 * @example
 * const { outcomes } = await importUserBatch(ctx, { appId: "shop", records, source: "users.jsonl" });
 */
export async function importUserBatch(
  ctx: UserImportContext,
  params: { appId: string; records: ImportRecord[]; source?: string; allowSharedKeys?: boolean },
): Promise<ImportBatchResult> {
  // Split custody: an imported user's wallet is sealed whole like any other, until the person's first
  // sign-in, when their key holder splits it (docs/split-custody.md §3.1).
  const outcomes = new Map<number, ImportOutcome>();
  const unique: ImportRecord[] = [];
  const firstLine = new Map<string, number>();
  for (const r of params.records) {
    const first = firstLine.get(r.key);
    if (first === undefined) {
      firstLine.set(r.key, r.line);
      unique.push(r);
    } else
      outcomes.set(r.line, { line: r.line, status: "duplicate", error: `the same user as line ${first}` });
  }
  // Sealed outside any transaction: derivation is the slow part, and a rollback loses nothing.
  const wallets = new Map<ImportRecord, ImportedWallet[]>();
  await Promise.all(
    unique.map(async (r) => {
      if (r.secrets.length)
        wallets.set(r, await Promise.all(r.secrets.map((s) => sealImportedWallet(ctx, s))));
    }),
  );
  const derivedBase: SealedWallet[] = [];
  let fromReserve = 0;
  for (let attempt = 0; ; attempt++) {
    const { existing, conflicts } = await findExisting(ctx.db, params.appId, unique);
    const candidates = unique.filter((r) => !existing.has(r.key) && !conflicts.has(r.key));
    const shared = await findSharedKeys(ctx.db, candidates, wallets);
    const fresh = params.allowSharedKeys ? candidates : candidates.filter((r) => !shared.has(r));
    // A phrase is a whole wallet; keys replace one chain's account of a new wallet, as an import does.
    const needBase = fresh.filter((r) => !r.secrets.some((s) => s.kind === "mnemonic")).length;
    try {
      const created = await ctx.db.transaction().execute(async (trx) => {
        const missing = Math.max(0, needBase - derivedBase.length);
        const claimed = missing > 0 && ctx.reserve ? await ctx.reserve.claimMany(trx, missing) : [];
        if (claimed.length < missing) throw new ReserveShort(missing - claimed.length);
        fromReserve = claimed.length;
        const bases = [...derivedBase.slice(0, needBase - claimed.length), ...claimed];
        const made = await insertUsers(trx, ctx, { appId: params.appId, fresh, bases, wallets });
        if (made.length)
          await trx
            .insertInto("audit_log")
            .values({
              id: ctx.random.uuid(),
              app_id: params.appId,
              user_id: null,
              event: "users.imported",
              ip: null,
              details: JSON.stringify({ count: made.length, source: params.source ?? null }),
              created_at: ctx.now(),
            })
            .execute();
        return made;
      });
      for (const c of created) {
        const r = fresh.find((f) => f.line === c.line);
        outcomes.set(c.line, r && shared.has(r) ? { ...c, sharedKey: true, error: shared.get(r) } : c);
      }
      if (!params.allowSharedKeys)
        for (const [r, reason] of shared)
          outcomes.set(r.line, { line: r.line, status: "shared_key", error: reason });
      for (const [key, reason] of conflicts) {
        const line = firstLine.get(key) as number;
        outcomes.set(line, { line, status: "conflict", error: reason });
      }
      const found = [...existing.entries()].map(([key, user]) => ({
        line: firstLine.get(key) as number,
        user,
      }));
      const addresses = await addressesOf(
        ctx.db,
        found.map((f) => f.user.org_id),
      );
      for (const { line, user } of found)
        outcomes.set(line, { line, status: "existing", userId: user.id, ...addresses.get(user.org_id) });
      const derived = needBase - fromReserve;
      return { outcomes: [...outcomes.values()].sort((a, b) => a.line - b.line), fromReserve, derived };
    } catch (e) {
      if (e instanceof ReserveShort) {
        derivedBase.push(...(await Promise.all(Array.from({ length: e.missing }, () => sealNewWallet(ctx)))));
        continue;
      }
      // Another writer made one of these users meanwhile: look again, and skip it.
      if (isUniqueViolation(e) && attempt < 3) continue;
      throw e;
    }
  }
}

/**
 * The records (in line order) whose imported wallets hold an account that is already some user's (any
 * organisation: the records' users are new) or an earlier record's, with why. Looked up by `address_key`
 * (indexed: wallet_accounts_address_key).
 */
async function findSharedKeys(
  db: Db,
  records: ImportRecord[],
  wallets: Map<ImportRecord, ImportedWallet[]>,
): Promise<Map<ImportRecord, string>> {
  const keysOf = (r: ImportRecord) =>
    (wallets.get(r) ?? []).flatMap((w) => w.accounts.map((a) => a.address_key));
  const all = records.flatMap(keysOf);
  const shared = new Map<ImportRecord, string>();
  if (all.length === 0) return shared;
  const held = new Set<string>();
  for (let i = 0; i < all.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom("wallet_accounts")
      .select("address_key")
      .where("address_key", "in", all.slice(i, i + ROWS_PER_INSERT))
      .execute();
    for (const row of rows) held.add(row.address_key);
  }
  const earlier = new Map<string, number>();
  for (const r of [...records].sort((a, b) => a.line - b.line)) {
    const keys = keysOf(r);
    const inBatch = keys.map((k) => earlier.get(k)).find((line) => line !== undefined);
    if (keys.some((k) => held.has(k))) shared.set(r, "a key of its wallet is already another user's");
    else if (inBatch !== undefined) shared.set(r, `a key of its wallet is line ${inBatch}'s too`);
    for (const k of keys) if (!earlier.has(k)) earlier.set(k, r.line);
  }
  return shared;
}

/** The users of `records` already in the app, by record key; and records whose email and id disagree. */
async function findExisting(db: Db, appId: string, records: ImportRecord[]) {
  const existing = new Map<string, Found>();
  const conflicts = new Map<string, string>();
  const ids = records.flatMap((r) => (r.externalId ? [r.externalId] : []));
  const verified = records.flatMap((r) => (r.email && r.emailVerified ? [r.email] : []));
  const contacts = records.flatMap((r) => (r.email && !r.emailVerified && !r.externalId ? [r.email] : []));
  const select = () =>
    db.selectFrom("users").select(["id", "org_id", "email", "external_id", "unverified_email"]);
  const [byId, byEmail, byContact] = await Promise.all([
    ids.length ? select().where("app_id", "=", appId).where("external_id", "in", ids).execute() : [],
    verified.length ? select().where("app_id", "=", appId).where("email", "in", verified).execute() : [],
    contacts.length
      ? select()
          .where("app_id", "=", appId)
          .where("unverified_email", "in", contacts)
          .where("pregenerated_at", "is not", null)
          .execute()
      : [],
  ]);
  const idIndex = new Map(byId.map((u) => [u.external_id as string, u]));
  const emailIndex = new Map(byEmail.map((u) => [u.email as string, u]));
  const contactIndex = new Map(byContact.map((u) => [u.unverified_email as string, u]));
  for (const r of records) {
    const withId = r.externalId ? idIndex.get(r.externalId) : undefined;
    const withEmail = r.email && r.emailVerified ? emailIndex.get(r.email) : undefined;
    if (withId && withEmail && withId.id !== withEmail.id)
      conflicts.set(r.key, "the externalId and the email are two different users");
    else if (!withId && withEmail && r.externalId)
      conflicts.set(r.key, "the email is a user's with another (or no) externalId");
    else if (withId) existing.set(r.key, withId);
    else if (withEmail) existing.set(r.key, withEmail);
    else if (!r.externalId && r.email && !r.emailVerified) {
      const contact = contactIndex.get(r.email);
      if (contact) existing.set(r.key, contact);
    }
  }
  return { existing, conflicts };
}

/** Writes the new users, their wallets and accounts (a few multi-row inserts), in `trx`. */
async function insertUsers(
  trx: Db,
  ctx: Pick<UserImportContext, "random" | "now">,
  params: {
    appId: string;
    fresh: ImportRecord[];
    bases: SealedWallet[];
    wallets: Map<ImportRecord, ImportedWallet[]>;
  },
): Promise<ImportOutcome[]> {
  const now = ctx.now();
  const users: Insertable<UsersTable>[] = [];
  const walletRows: Insertable<WalletsTable>[] = [];
  const accountRows: Insertable<WalletAccountsTable>[] = [];
  const outcomes: ImportOutcome[] = [];
  let next = 0;
  for (const r of params.fresh) {
    const id = ctx.random.uuid();
    const orgId = ctx.random.uuid();
    users.push({
      id,
      org_id: orgId,
      app_id: params.appId,
      email: r.emailVerified ? r.email : null,
      unverified_email: r.emailVerified ? null : r.email,
      created_at: now,
      external_id: r.externalId,
      pregenerated_at: now,
      claimed_at: null,
    });
    const imported = params.wallets.get(r) ?? [];
    const owned: { wallet: SealedWallet; kind: string | null; at: number }[] = [];
    // Without a phrase, a new wallet first; imported keys a millisecond later, so they are the newest
    // account of their chain (users/userStore.ts userAddresses).
    if (!imported.some((w) => w.kind === "mnemonic"))
      owned.push({ wallet: params.bases[next++] as SealedWallet, kind: null, at: now });
    for (const w of imported)
      owned.push({ wallet: w, kind: w.kind, at: w.kind === "mnemonic" ? now : now + 1 });
    const inUse = new Map<string, string>();
    for (const { wallet, kind, at } of owned) {
      walletRows.push({
        id: wallet.id,
        org_id: orgId,
        user_id: id,
        name: kind ? IMPORTED_WALLET_NAME : DEFAULT_WALLET_NAME,
        sealed_mnemonic: wallet.sealedMnemonic,
        created_at: at,
        imported: kind,
      });
      for (const a of wallet.accounts) {
        accountRows.push({ ...a, wallet_id: wallet.id, org_id: orgId, created_at: at });
        inUse.set(a.address_format, a.address);
      }
    }
    outcomes.push({
      line: r.line,
      status: "created",
      userId: id,
      address: inUse.get("ADDRESS_FORMAT_ETHEREUM") ?? "",
      solanaAddress: inUse.get("ADDRESS_FORMAT_SOLANA") ?? "",
    });
  }
  for (let i = 0; i < users.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto("users")
      .values(users.slice(i, i + ROWS_PER_INSERT))
      .execute();
  for (let i = 0; i < walletRows.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto("wallets")
      .values(walletRows.slice(i, i + ROWS_PER_INSERT))
      .execute();
  for (let i = 0; i < accountRows.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto("wallet_accounts")
      .values(accountRows.slice(i, i + ROWS_PER_INSERT))
      .execute();
  return outcomes;
}

/** The addresses in use of these organisations: the newest account of each chain (as userAddresses). */
async function addressesOf(db: Db, orgIds: string[]) {
  const out = new Map<string, { address: string; solanaAddress: string }>();
  if (orgIds.length === 0) return out;
  const rows = await db
    .selectFrom("wallet_accounts")
    .select(["org_id", "address", "address_format"])
    .where("org_id", "in", orgIds)
    .orderBy("created_at", "asc")
    .execute();
  for (const r of rows) {
    const entry = out.get(r.org_id) ?? { address: "", solanaAddress: "" };
    if (r.address_format === "ADDRESS_FORMAT_ETHEREUM") entry.address = r.address;
    else entry.solanaAddress = r.address;
    out.set(r.org_id, entry);
  }
  return out;
}
