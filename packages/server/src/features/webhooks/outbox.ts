import { Webhook } from "standardwebhooks";
import type { AuditFields, Random } from "../../context";
import type { Keyring } from "../../crypto/keyring";
import { type Db, inTransaction } from "../../db";
import type { WebhookTuning } from "./config";
import { EndpointDirectory, secretContext } from "./endpoints";
import { webhookEventOf } from "./events";
import { postWebhook, RefusedAddressError, type ResolveHost, resolveWithDns } from "./postWebhook";

/** An audited event as the audit log stores it. */
export interface AuditedEvent {
  id: string;
  event: string;
  fields: AuditFields;
  createdAt: number;
}

interface Claimed {
  id: string;
  event_id: string;
  endpoint_id: string;
  app_id: string;
  attempts: number;
  give_up_at: number;
}

/** How many characters of an error or a status line the log keeps. */
const ERROR_CHARS = 500;

/**
 * The webhook outbox and its delivery worker. `record` writes an event (and one delivery per endpoint that
 * wants it) in the transaction of its audit row. The worker claims due deliveries with a lease (one
 * UPDATE, so two instances on one database never claim the same row), POSTs each signed per Standard
 * Webhooks, and logs every attempt: a 2xx delivers it; anything else retries with exponential backoff
 * until the retry window (24 h) ends, then it is failed. A process killed mid-delivery leaves its lease to
 * expire, and the delivery is sent again: at least once, under the same `webhook-id`.
 */
export class WebhookOutbox {
  readonly endpoints: EndpointDirectory;
  readonly tuning: WebhookTuning;
  readonly #db: Db;
  readonly #keyring: Keyring;
  readonly #now: () => number;
  readonly #random: Random;
  readonly #onError: (e: unknown) => void;
  readonly #resolveHost: ResolveHost;
  readonly #allowLoopback: boolean;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = 0;
  #again = false;
  #running: Promise<void> | undefined;
  #started = false;
  #stopping = false;
  readonly #abort = new AbortController();

  constructor(options: {
    db: Db;
    keyring: Keyring;
    now: () => number;
    random: Random;
    tuning: WebhookTuning;
    onError: (e: unknown) => void;
    /** How endpoint hosts are resolved before each attempt (DNS by default; tests inject answers). */
    resolveHost?: ResolveHost;
    /** Dev mode: endpoints may reach loopback without `allowPrivateNetwork`. */
    allowLoopback?: boolean;
  }) {
    this.#db = options.db;
    this.#keyring = options.keyring;
    this.#now = options.now;
    this.#random = options.random;
    this.tuning = options.tuning;
    this.#onError = options.onError;
    this.#resolveHost = options.resolveHost ?? resolveWithDns;
    this.#allowLoopback = options.allowLoopback ?? false;
    this.endpoints = new EndpointDirectory({ now: options.now });
  }

  /**
   * Runs `writeAudit` and, when an endpoint of the app wants the event, writes the event and its
   * deliveries with it: inside `into` when that is a transaction, else in a new one. Either both are
   * stored or neither.
   */
  async record(into: Db, audited: AuditedEvent, writeAudit: (db: Db) => Promise<unknown>): Promise<void> {
    const appId = audited.fields.appId;
    const mapped = appId ? webhookEventOf(audited.event, audited.fields.details) : null;
    const wanted =
      appId && mapped ? (await this.endpoints.of(into, appId)).filter((e) => e.events.has(mapped.type)) : [];
    if (!appId || !mapped || wanted.length === 0) {
      await writeAudit(into);
      return;
    }
    const write = async (trx: Db) => {
      await writeAudit(trx);
      const eventId = `msg_${audited.id}`;
      const payload = JSON.stringify({
        type: mapped.type,
        timestamp: new Date(audited.createdAt).toISOString(),
        data: { appId, ...(audited.fields.userId ? { userId: audited.fields.userId } : {}), ...mapped.data },
      });
      await trx
        .insertInto("webhook_events")
        .values({ id: eventId, app_id: appId, type: mapped.type, payload, created_at: audited.createdAt })
        .execute();
      await trx
        .insertInto("webhook_deliveries")
        .values(
          wanted.map((e) => ({
            id: `dlv_${this.#random.uuid()}`,
            event_id: eventId,
            endpoint_id: e.id,
            app_id: appId,
            status: "pending" as const,
            attempts: 0,
            next_attempt_at: audited.createdAt,
            give_up_at: audited.createdAt + this.tuning.retryForMs,
            leased_until: null,
            lease_owner: null,
            last_status_code: null,
            last_error: null,
            delivered_at: null,
            created_at: audited.createdAt,
            updated_at: audited.createdAt,
          })),
        )
        .execute();
    };
    await inTransaction(into, write);
    // Committed by now, or soon (the caller's transaction): look in a moment rather than at the next poll.
    this.wake(50);
  }

  /** Starts delivering (a listening service does; a process that only migrates does not). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.wake(0);
  }

  /** Looks at the outbox within `ms` (sooner than the next poll); never puts off a look already due sooner. */
  wake(ms = 0): void {
    if (!this.#started || this.#stopping) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const at = performance.now() + ms;
    if (this.#timer && this.#timerAt <= at) return;
    this.#schedule(ms);
  }

  #schedule(ms: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = performance.now() + ms;
    this.#timer = setTimeout(() => this.#tick(), ms);
    this.#timer.unref();
  }

  /** Stops: attempts in flight are abandoned (their leases given back, no attempt counted). */
  async close(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running;
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#stopping) return;
    this.#running = this.#deliverDue()
      .catch((e: unknown) => {
        this.#onError(e);
        return 0;
      })
      .then((n) => {
        this.#running = undefined;
        if (this.#stopping) return;
        // A full batch, or an event recorded meanwhile: more may be due at once.
        const again = this.#again || n >= this.tuning.concurrency;
        this.#again = false;
        this.#schedule(again ? 0 : this.tuning.pollMs);
      });
  }

  /** Claims what is due (a lease of `leaseMs`) and sends it; returns how many were claimed. */
  async #deliverDue(): Promise<number> {
    const now = this.#now();
    const owner = this.#random.uuid();
    const claimable = (q: Db) =>
      q
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("status", "=", "pending")
        .where("next_attempt_at", "<=", now)
        .where((eb) => eb.or([eb("leased_until", "is", null), eb("leased_until", "<", now)]))
        .orderBy("next_attempt_at")
        .limit(this.tuning.concurrency);
    // One statement: a row another instance claimed meanwhile no longer matches the outer conditions
    // (PostgreSQL re-checks them on the locked row; SQLite runs one writer at a time).
    const claimed: Claimed[] = await this.#db
      .updateTable("webhook_deliveries")
      .set({ leased_until: now + this.tuning.leaseMs, lease_owner: owner })
      .where("id", "in", claimable(this.#db))
      .where("status", "=", "pending")
      .where((eb) => eb.or([eb("leased_until", "is", null), eb("leased_until", "<", now)]))
      .returning(["id", "event_id", "endpoint_id", "app_id", "attempts", "give_up_at"])
      .execute();
    await Promise.all(claimed.map((d) => this.#deliverOne(d, owner).catch((e: unknown) => this.#onError(e))));
    return claimed.length;
  }

  async #deliverOne(d: Claimed, owner: string): Promise<void> {
    const row = await this.#db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_events as e", "e.id", "d.event_id")
      .innerJoin("webhook_endpoints as p", "p.id", "d.endpoint_id")
      .select(["e.payload", "p.url", "p.sealed_secret", "p.removed_at", "p.allow_private_network"])
      .where("d.id", "=", d.id)
      .executeTakeFirstOrThrow();
    const startedAt = this.#now();
    if (row.removed_at !== null) {
      await this.#finish(d, owner, {
        startedAt,
        durationMs: 0,
        statusCode: null,
        error: "endpoint removed",
        final: true,
      });
      return;
    }
    let signature: string;
    try {
      signature = await this.#sign(d, row.sealed_secret, new Date(startedAt), row.payload);
    } catch (e) {
      // The secret cannot be opened (a master key changed without re-wrapping?): logged, retried.
      await this.#finish(d, owner, {
        startedAt,
        durationMs: 0,
        statusCode: null,
        error: `not signed: ${(e as Error).message}`.slice(0, ERROR_CHARS),
        final: false,
      });
      return;
    }
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      statusCode = await postWebhook({
        url: row.url,
        headers: {
          "content-type": "application/json",
          "user-agent": "Latchkey-Webhooks/1",
          "webhook-id": d.event_id,
          "webhook-timestamp": String(Math.floor(startedAt / 1000)),
          "webhook-signature": signature,
        },
        body: row.payload,
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.tuning.timeoutMs)]),
        resolve: this.#resolveHost,
        allowPrivateNetwork: row.allow_private_network === 1,
        allowLoopback: this.#allowLoopback,
      });
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
    } catch (e) {
      if (this.#abort.signal.aborted) {
        // Stopping: not the endpoint's failure. The lease goes back; another instance (or the next start)
        // sends it again.
        await this.#db
          .updateTable("webhook_deliveries")
          .set({ leased_until: null, lease_owner: null })
          .where("id", "=", d.id)
          .where("lease_owner", "=", owner)
          .execute();
        return;
      }
      error = describe(e, this.tuning.timeoutMs);
      // Nothing was sent. Refused at once, not retried: an operator who trusts the address opts the
      // endpoint in and sends it again (redeliver).
      refused = e instanceof RefusedAddressError;
    }
    await this.#finish(d, owner, {
      startedAt,
      durationMs: Math.round(performance.now() - started),
      statusCode,
      error,
      final: refused,
    });
  }

  /** The `webhook-signature` header: the secret opened just for this, then wiped. */
  async #sign(d: Claimed, sealed: string, timestamp: Date, payload: string): Promise<string> {
    const secret = await this.#keyring.open(sealed, secretContext(d.app_id, d.endpoint_id));
    const key = Buffer.from(secret.toString("utf8").slice("whsec_".length), "base64");
    try {
      return new Webhook(new Uint8Array(key), { format: "raw" }).sign(d.event_id, timestamp, payload);
    } finally {
      secret.fill(0);
      key.fill(0);
    }
  }

  /** Logs the attempt and moves the delivery on: delivered, failed, or due again after the backoff. */
  async #finish(
    d: Claimed,
    owner: string,
    a: {
      startedAt: number;
      durationMs: number;
      statusCode: number | null;
      error: string | null;
      final: boolean;
    },
  ): Promise<void> {
    const now = this.#now();
    const attempt = d.attempts + 1;
    const ok = a.error === null;
    const next = now + backoffMs(attempt, this.tuning, this.#random);
    const status = ok ? "delivered" : a.final || next > d.give_up_at ? "failed" : "pending";
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .insertInto("webhook_attempts")
        .values({
          id: `att_${this.#random.uuid()}`,
          delivery_id: d.id,
          app_id: d.app_id,
          attempt,
          started_at: a.startedAt,
          duration_ms: a.durationMs,
          status_code: a.statusCode,
          error: a.error,
        })
        .execute();
      // Only while the lease is still ours: had it run out and another instance taken the delivery, that
      // instance's outcome stands.
      await trx
        .updateTable("webhook_deliveries")
        .set({
          status,
          attempts: attempt,
          next_attempt_at: status === "pending" ? next : now,
          leased_until: null,
          lease_owner: null,
          last_status_code: a.statusCode,
          last_error: a.error,
          delivered_at: ok ? now : null,
          updated_at: now,
        })
        .where("id", "=", d.id)
        .where("lease_owner", "=", owner)
        .execute();
    });
  }
}

/** The wait before attempt `attempt + 1`: base × 2^(attempt-1), at most the maximum, ±20% jitter. */
export function backoffMs(attempt: number, tuning: WebhookTuning, random: Random): number {
  const plain = Math.min(tuning.retryBaseMs * 2 ** Math.min(attempt - 1, 40), tuning.retryMaxMs);
  const jitter = 0.8 + random.int(401) / 1000;
  return Math.round(plain * jitter);
}

function describe(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"))
    return `no answer in ${timeoutMs} ms`;
  if (e instanceof RefusedAddressError) return e.message.slice(0, ERROR_CHARS);
  const cause = e instanceof Error ? (e.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = (e as { code?: unknown } | null)?.code;
  const text =
    cause?.code ??
    cause?.message ??
    (typeof code === "string" ? code : undefined) ??
    (e instanceof Error ? e.message : String(e));
  return text.slice(0, ERROR_CHARS);
}
