import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServiceContext } from "../context";
import type { Db } from "../db";
import { prepared } from "../db/prepared";
import type { SealedWallet } from "../db/schema";
import { sealNewWallet } from "./sealWallet";

/** Wallets derived per refill transaction. */
const BATCH = 16;
/** How often an idle reserve looks at the event loop and the stock. */
const CHECK_MS = 200;
/** How long a full reserve waits before it counts again (claims by other processes show up then). */
const FULL_MS = 2000;
/** The event loop's busy share above which the reserve does not refill: requests come first. */
const BUSY = 0.5;

// One row out of the reserve, inside the sign-up's transaction. PostgreSQL skips rows another
// transaction holds, so concurrent sign-ups (in any process) take different wallets without waiting;
// SQLite's writers take turns anyway. A rolled-back or killed transaction leaves its row in place.
const claimSqlite = prepared((db) =>
  db
    .deleteFrom("wallet_reserve")
    .where("id", "=", (eb) => eb.selectFrom("wallet_reserve").select("id").orderBy("id").limit(1))
    .returning(["id", "sealed_mnemonic", "accounts"]),
);
const claimPostgres = prepared((db) =>
  db
    .deleteFrom("wallet_reserve")
    .where("id", "=", (eb) =>
      eb.selectFrom("wallet_reserve").select("id").orderBy("id").limit(1).forUpdate().skipLocked(),
    )
    .returning(["id", "sealed_mnemonic", "accounts"]),
);

/**
 * Wallets derived ahead of sign-ups, for launch-day spikes: while the event loop is mostly idle it keeps
 * `target` sealed wallets in `wallet_reserve`, and a sign-up takes one inside its own transaction instead
 * of deriving (PBKDF2 and the curves are most of a sign-up's CPU). While the service is busy the reserve
 * does not refill; once it is empty, sign-ups derive their wallets as before. A wallet is deleted from
 * the reserve in the same transaction that gives it an owner, so it has exactly one owner, and a sign-up
 * that fails or a process killed mid-way leaves it in the reserve. Several processes may share one
 * database: each refills towards the same target (it may overshoot by a batch per process).
 */
export class WalletReserve {
  readonly target: number;
  readonly #ctx: Pick<ServiceContext, "db" | "dbKind" | "keyring" | "random" | "now" | "wallets">;
  readonly #onError: (e: unknown) => void;
  /** What this process last knew of the stock: a hint whether a claim is worth trying. */
  #stock = 0;
  #closed = false;
  #running: Promise<void> | null = null;
  #wake: AbortController | null = null;

  constructor(
    ctx: Pick<ServiceContext, "db" | "dbKind" | "keyring" | "random" | "now" | "wallets">,
    opts: { target: number; onError?: (e: unknown) => void },
  ) {
    this.#ctx = ctx;
    this.target = opts.target;
    this.#onError = opts.onError ?? (() => {});
  }

  /** True when a claim is likely to find a wallet (this process's last count, less its own claims). */
  get likelyStocked(): boolean {
    return this.#stock > 0;
  }

  /** Starts refilling in the background (nothing to do for a target of 0). */
  start(): void {
    if (this.target <= 0 || this.#running) return;
    this.#running = this.#run();
  }

  /**
   * Takes one wallet out of the reserve inside `trx`, the sign-up's transaction; null when it is empty.
   * The wallet keeps the ids it was sealed with (the sealing binds them).
   */
  async claim(trx: Db): Promise<SealedWallet | null> {
    const claim = this.#ctx.dbKind === "postgres" ? claimPostgres : claimSqlite;
    const [row] = await claim(trx, {});
    if (!row) {
      this.#stock = 0;
      return null;
    }
    this.#stock = Math.max(0, this.#stock - 1);
    return { id: row.id, sealedMnemonic: row.sealed_mnemonic, accounts: JSON.parse(row.accounts) };
  }

  /**
   * Takes up to `n` wallets out of the reserve inside `trx` (a bulk import's transaction: `latchkey users
   * import`), as `claim` takes one: fewer when it holds fewer; concurrent claimers get different ones.
   */
  async claimMany(trx: Db, n: number): Promise<SealedWallet[]> {
    if (n <= 0) return [];
    const first = trx.selectFrom("wallet_reserve").select("id").orderBy("id").limit(n);
    const ids = this.#ctx.dbKind === "postgres" ? first.forUpdate().skipLocked() : first;
    const rows = await trx
      .deleteFrom("wallet_reserve")
      .where("id", "in", ids)
      .returning(["id", "sealed_mnemonic", "accounts"])
      .execute();
    this.#stock = rows.length < n ? 0 : Math.max(0, this.#stock - rows.length);
    return rows.map((row) => ({
      id: row.id,
      sealedMnemonic: row.sealed_mnemonic,
      accounts: JSON.parse(row.accounts),
    }));
  }

  /** How many wallets the reserve holds (all processes). */
  async count(): Promise<number> {
    const row = await this.#ctx.db
      .selectFrom("wallet_reserve")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    this.#stock = Number(row.n);
    return this.#stock;
  }

  /** Derives `n` wallets (on the wallet threads) and stores them in one transaction. */
  async fill(n: number): Promise<void> {
    if (n <= 0) return;
    const wallets = await Promise.all(Array.from({ length: n }, () => sealNewWallet(this.#ctx)));
    const now = this.#ctx.now();
    await insertReserved(this.#ctx.db, wallets, now);
    this.#stock += n;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    // What the reserve holds now (another process, or an earlier run, may have filled it): a burst that
    // comes before the loop is ever idle still finds it.
    await this.count().catch((e: unknown) => this.#onError(e));
    let mark = performance.eventLoopUtilization();
    let idle = false;
    while (!this.#closed) {
      // Straight on after a batch while the loop stays idle; otherwise look again in a moment.
      if (!idle && !(await this.#pause(CHECK_MS))) return;
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, mark).utilization > BUSY;
      mark = now;
      idle = false;
      if (busy) continue;
      try {
        const missing = this.target - (await this.count());
        if (this.#closed) continue;
        if (missing <= 0) {
          // Full: no need to count the whole table five times a second. Wait, then judge the loop on a
          // fresh window of CHECK_MS as usual.
          if (!(await this.#pause(FULL_MS - CHECK_MS))) return;
          mark = performance.eventLoopUtilization();
          continue;
        }
        await this.fill(Math.min(BATCH, missing));
        idle = true;
      } catch (e) {
        if (!this.#closed) this.#onError(e);
      }
    }
  }

  /** Waits `ms` unless closed meanwhile; false once closed. */
  async #pause(ms: number): Promise<boolean> {
    this.#wake = new AbortController();
    try {
      await sleep(ms, undefined, { signal: this.#wake.signal, ref: false });
    } catch {
      // Aborted by close().
    }
    return !this.#closed;
  }
}

async function insertReserved(db: Db, wallets: SealedWallet[], now: number): Promise<void> {
  await db
    .insertInto("wallet_reserve")
    .values(
      wallets.map((w) => ({
        id: w.id,
        sealed_mnemonic: w.sealedMnemonic,
        accounts: JSON.stringify(w.accounts),
        created_at: now,
      })),
    )
    .execute();
}
