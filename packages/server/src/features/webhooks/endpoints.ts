import { randomUUID } from "node:crypto";
import type { Keyring } from "../../crypto/keyring";
import type { Db } from "../../db";
import type { WebhookEndpointConfig } from "./config";

/** The keyring context an endpoint's secret is sealed under: bound to its app and its row. */
export const secretContext = (appId: string, endpointId: string) => `webhook_secret:${appId}:${endpointId}`;

/**
 * Makes the app's stored endpoints what its config says, inside the app's upsert transaction: new URLs are
 * added, listed ones get their events and secret (sealed), and the rest are marked removed (their log
 * stays; nothing more is sent to them).
 */
export async function storeWebhookEndpoints(
  ctx: { trx: Db; now: number; keyring: Keyring | undefined },
  appId: string,
  endpoints: readonly WebhookEndpointConfig[],
): Promise<void> {
  const { trx, now, keyring } = ctx;
  const existing = await trx
    .selectFrom("webhook_endpoints")
    .select(["id", "url", "removed_at"])
    .where("app_id", "=", appId)
    .execute();
  if (endpoints.length && !keyring) throw new Error("A keyring is needed to store a webhook secret");
  const seal = (id: string, secret: string) =>
    (keyring as Keyring).seal(new TextEncoder().encode(secret), secretContext(appId, id));
  for (const e of endpoints) {
    const row = existing.find((r) => r.url === e.url);
    const events = JSON.stringify([...new Set(e.events)]);
    if (row) {
      await trx
        .updateTable("webhook_endpoints")
        .set({
          events,
          sealed_secret: seal(row.id, e.secret),
          allow_private_network: e.allowPrivateNetwork ? 1 : 0,
          updated_at: now,
          removed_at: null,
        })
        .where("id", "=", row.id)
        .execute();
    } else {
      const id = `ep_${randomUUID()}`;
      await trx
        .insertInto("webhook_endpoints")
        .values({
          id,
          app_id: appId,
          url: e.url,
          events,
          sealed_secret: seal(id, e.secret),
          allow_private_network: e.allowPrivateNetwork ? 1 : 0,
          created_at: now,
          updated_at: now,
          removed_at: null,
        })
        .execute();
    }
  }
  const gone = existing.filter((r) => r.removed_at === null && !endpoints.some((e) => e.url === r.url));
  if (gone.length)
    await trx
      .updateTable("webhook_endpoints")
      .set({ removed_at: now, updated_at: now })
      .where(
        "id",
        "in",
        gone.map((r) => r.id),
      )
      .execute();
}

/** An app's live endpoints and the events each wants. */
export interface EndpointSubscription {
  id: string;
  events: Set<string>;
}

/**
 * Which endpoints of an app want events, read on every audited event: cached per app for a few seconds
 * (a config change made by another process applies within them). Reads go through the caller's
 * transaction, never beside it (SQLite has one connection).
 */
export class EndpointDirectory {
  #byApp = new Map<string, { list: EndpointSubscription[]; at: number }>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(options: { now: () => number; ttlMs?: number }) {
    this.#now = options.now;
    this.#ttlMs = options.ttlMs ?? 5000;
  }

  async of(db: Db, appId: string): Promise<EndpointSubscription[]> {
    const now = this.#now();
    const cached = this.#byApp.get(appId);
    if (cached && now - cached.at < this.#ttlMs) return cached.list;
    const rows = await db
      .selectFrom("webhook_endpoints")
      .select(["id", "events"])
      .where("app_id", "=", appId)
      .where("removed_at", "is", null)
      .execute();
    const list = rows.map((r) => ({ id: r.id, events: new Set(JSON.parse(r.events) as string[]) }));
    if (this.#byApp.size > 10_000) this.#byApp.clear();
    this.#byApp.set(appId, { list, at: now });
    return list;
  }

  invalidate(): void {
    this.#byApp.clear();
  }
}
