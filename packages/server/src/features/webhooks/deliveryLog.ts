import type { Db } from "../../db";
import type { WebhookDeliveriesTable } from "../../db/schema";

const DEFAULT_RETRY_FOR_MS = 24 * 3_600_000;

/** One event to one endpoint, as the console lists it. */
export interface WebhookDelivery {
  id: string;
  /** The `webhook-id` the endpoint sees (the same on every attempt and redelivery). */
  eventId: string;
  eventType: string;
  endpointId: string;
  url: string;
  status: WebhookDeliveriesTable["status"];
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  createdAt: number;
}

export interface WebhookAttempt {
  attempt: number;
  startedAt: number;
  durationMs: number;
  /** The endpoint's HTTP status; null when none came. */
  statusCode: number | null;
  error: string | null;
}

export interface DeliveryFilter {
  appId: string;
  status?: WebhookDeliveriesTable["status"];
  eventType?: string;
  eventId?: string;
  endpointId?: string;
  /** Up to 200 (default 50). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/**
 * An app's deliveries, newest first, a page at a time (index `webhook_deliveries_app_created`): what the
 * admin API and the console show as the delivery log.
 *
 * @example
 * const { items, nextCursor } = await listWebhookDeliveries(db, { appId: "shop", status: "failed" });
 */
export async function listWebhookDeliveries(
  db: Db,
  filter: DeliveryFilter,
): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  let q = db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as e", "e.id", "d.event_id")
    .innerJoin("webhook_endpoints as p", "p.id", "d.endpoint_id")
    .select([
      "d.id",
      "d.event_id",
      "e.type",
      "d.endpoint_id",
      "p.url",
      "d.status",
      "d.attempts",
      "d.next_attempt_at",
      "d.last_status_code",
      "d.last_error",
      "d.delivered_at",
      "d.created_at",
    ])
    .where("d.app_id", "=", filter.appId);
  if (filter.status) q = q.where("d.status", "=", filter.status);
  if (filter.eventType) q = q.where("e.type", "=", filter.eventType);
  if (filter.eventId) q = q.where("d.event_id", "=", filter.eventId);
  if (filter.endpointId) q = q.where("d.endpoint_id", "=", filter.endpointId);
  const cursor = parseCursor(filter.cursor);
  if (cursor)
    q = q.where((eb) =>
      eb.or([
        eb("d.created_at", "<", cursor.createdAt),
        eb.and([eb("d.created_at", "=", cursor.createdAt), eb("d.id", "<", cursor.id)]),
      ]),
    );
  const rows = await q
    .orderBy("d.created_at", "desc")
    .orderBy("d.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.type,
      endpointId: r.endpoint_id,
      url: r.url,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.status === "pending" ? r.next_attempt_at : null,
      lastStatusCode: r.last_status_code,
      lastError: r.last_error,
      deliveredAt: r.delivered_at,
      createdAt: r.created_at,
    })),
    nextCursor: rows.length > limit && last ? `${last.created_at}.${last.id}` : null,
  };
}

function parseCursor(cursor: string | undefined): { createdAt: number; id: string } | null {
  if (!cursor) return null;
  const m = /^(\d{1,16})\.(\S{1,100})$/.exec(cursor);
  if (!m?.[1] || !m[2]) throw new RangeError("Invalid cursor");
  return { createdAt: Number(m[1]), id: m[2] };
}

/** Every attempt of one of the app's deliveries, oldest first; null when the app has no such delivery. */
export async function listWebhookAttempts(
  db: Db,
  params: { appId: string; deliveryId: string },
): Promise<WebhookAttempt[] | null> {
  const owned = await db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("id", "=", params.deliveryId)
    .where("app_id", "=", params.appId)
    .executeTakeFirst();
  if (!owned) return null;
  const rows = await db
    .selectFrom("webhook_attempts")
    .select(["attempt", "started_at", "duration_ms", "status_code", "error"])
    .where("delivery_id", "=", params.deliveryId)
    .orderBy("started_at")
    .orderBy("attempt")
    .execute();
  return rows.map((r) => ({
    attempt: r.attempt,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    statusCode: r.status_code,
    error: r.error,
  }));
}

/**
 * Sends one of the app's deliveries again, whatever its state: due now, with a new retry window; the
 * endpoint sees the same `webhook-id`. False when the app has no such delivery (or its endpoint is gone).
 */
export async function redeliverWebhook(
  ctx: { db: Db; now: () => number; retryForMs?: number; wake?: () => void },
  params: { appId: string; deliveryId: string },
): Promise<boolean> {
  const now = ctx.now();
  const live = await ctx.db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as p", "p.id", "d.endpoint_id")
    .select("d.id")
    .where("d.id", "=", params.deliveryId)
    .where("d.app_id", "=", params.appId)
    .where("p.removed_at", "is", null)
    .executeTakeFirst();
  if (!live) return false;
  await ctx.db
    .updateTable("webhook_deliveries")
    .set({
      status: "pending",
      next_attempt_at: now,
      give_up_at: now + (ctx.retryForMs ?? DEFAULT_RETRY_FOR_MS),
      leased_until: null,
      lease_owner: null,
      updated_at: now,
    })
    .where("id", "=", params.deliveryId)
    .execute();
  ctx.wake?.();
  return true;
}
