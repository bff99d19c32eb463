// Webhooks (features/webhooks): endpoints, the outbox, deliveries and their attempts.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.
import type { Generated } from "kysely";

/** An app's webhook endpoint (features/webhooks), from its config; one no longer configured keeps its log. */
export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** Sealed with the keyring under `webhook_secret:<app>:<id>`. */
  sealed_secret: string;
  created_at: number;
  updated_at: number;
  /** Set when the endpoint left the app's config: nothing more is sent to it. */
  removed_at: number | null;
  /** 1: the endpoint may reach private and other non-public addresses (`allowPrivateNetwork`). */
  allow_private_network: Generated<number>;
}
/** An event to deliver (the outbox), written in the transaction of its audit row; `id` is `webhook-id`. */
export interface WebhookEventsTable {
  id: string;
  app_id: string;
  type: string;
  /** The JSON body, exactly as signed and sent. */
  payload: string;
  created_at: number;
}
/** One event to one endpoint: pending until a 2xx answer (delivered) or the retry window's end (failed). */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  app_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number;
  /** After this, a failed attempt marks the delivery failed. */
  give_up_at: number;
  /** A claim by one instance: nobody else sends it before then. */
  leased_until: number | null;
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}
/** The delivery log: one row per attempt. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  app_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  /** The endpoint's HTTP status, or null when none came (refused, timed out). */
  status_code: number | null;
  error: string | null;
}
