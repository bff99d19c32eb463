import { z } from "zod";
import { refusedRangeOfHost } from "./addressPolicy";

/** The events an app's webhook endpoint may ask for (README "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.signed_in",
  "auth_method.added",
  "auth_method.removed",
  "mfa.added",
  "mfa.removed",
  "wallet.exported",
  "activity.consensus_needed",
  "activity.approved",
  "activity.rejected",
  "policy.denied",
  "sponsorship.spent",
  "user.claimed",
  "wallet.imported",
  "grant.created",
  "grant.revoked",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A signing secret as Standard Webhooks writes it: `whsec_` and 24 to 64 random bytes in base64. */
export const webhookSecretSchema = z
  .string()
  .regex(
    /^whsec_[A-Za-z0-9+/]+={0,2}$/,
    'must be "whsec_" followed by base64, e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  )
  .refine((s) => {
    const n = Buffer.from(s.slice("whsec_".length), "base64").length;
    return n >= 24 && n <= 64;
  }, "must hold 24 to 64 bytes (base64 after whsec_)");

/**
 * One endpoint of an app: where events are POSTed, which ones, and the secret they are signed with
 * (sealed at rest). https anywhere; http only to a loopback host, or with `allowInsecureHttp`. A private,
 * link-local (cloud metadata) or other non-public address needs `allowPrivateNetwork`; so does loopback
 * outside dev mode, which `upsertApp` checks (the schema does not know the mode).
 */
export const webhookEndpointConfigSchema = z
  .object({
    url: z.string().url(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
    secret: webhookSecretSchema,
    /** Allow http:// to a host other than localhost (a private network the operator trusts). */
    allowInsecureHttp: z.boolean().optional(),
    /**
     * Allow an address in a private, link-local, shared or other non-public range (and loopback outside
     * dev mode): a receiver on a network the operator trusts. Checked again against DNS at each delivery.
     */
    allowPrivateNetwork: z.boolean().optional(),
  })
  .strict()
  .superRefine((e, c) => {
    let url: URL;
    try {
      url = new URL(e.url);
    } catch {
      return;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      c.addIssue({ code: "custom", path: ["url"], message: "must be an http(s) URL" });
    else if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname) && !e.allowInsecureHttp)
      c.addIssue({
        code: "custom",
        path: ["url"],
        message: "must be https (http only to localhost, or with allowInsecureHttp)",
      });
    const refused = refusedRangeOfHost(url.hostname);
    if (refused?.kind === "private" && !e.allowPrivateNetwork)
      c.addIssue({
        code: "custom",
        path: ["url"],
        message: `is a ${refused.range} address: webhooks go to public addresses unless the endpoint sets allowPrivateNetwork: true`,
      });
    if (url.username || url.password)
      c.addIssue({ code: "custom", path: ["url"], message: "must not carry a user name or password" });
  });
export type WebhookEndpointConfig = z.infer<typeof webhookEndpointConfigSchema>;

/**
 * Why an app's endpoints cannot be stored as they are, or null: a loopback URL outside dev mode without
 * `allowPrivateNetwork` (the schema refuses the other non-public ranges).
 */
export function loopbackWebhookIssue(
  appId: string,
  endpoints: readonly WebhookEndpointConfig[],
  opts: { allowLoopback: boolean },
): string | null {
  if (opts.allowLoopback) return null;
  for (const e of endpoints) {
    const refused = refusedRangeOfHost(new URL(e.url).hostname);
    if (refused?.kind === "loopback" && !e.allowPrivateNetwork)
      return `App ${appId}: webhook ${e.url} is a ${refused.range} address: allowed in dev mode (latchkey serve --dev), otherwise only with allowPrivateNetwork: true on the endpoint`;
  }
  return null;
}

/** An app's endpoints (`webhooks` in its config): up to 16, each URL once. */
export const webhooksConfigSchema = z
  .array(webhookEndpointConfigSchema)
  .max(16)
  .superRefine((list, c) => {
    const seen = new Set<string>();
    for (const [i, e] of list.entries()) {
      if (seen.has(e.url))
        c.addIssue({ code: "custom", path: [i, "url"], message: `${e.url} is listed twice` });
      seen.add(e.url);
    }
  });

/** How deliveries are paced; LATCHKEY_WEBHOOK_* environment variables override the defaults. */
export interface WebhookTuning {
  /** The first retry's delay; each next one doubles it (default 5 s). */
  retryBaseMs: number;
  /** The longest delay between two attempts (default 1 h). */
  retryMaxMs: number;
  /** How long after the event attempts go on before the delivery is marked failed (default 24 h). */
  retryForMs: number;
  /** How often the outbox is looked at when nothing woke it (default 1 s). */
  pollMs: number;
  /** One attempt's time limit (default 10 s). */
  timeoutMs: number;
  /** How long a claimed delivery is an instance's own; after that another may take it (default timeout + 20 s). */
  leaseMs: number;
  /** Deliveries one instance makes at once (default 8). */
  concurrency: number;
}

export function webhookTuning(env: NodeJS.ProcessEnv): WebhookTuning {
  const num = (name: string, fallback: number) => {
    const raw = env[`LATCHKEY_WEBHOOK_${name}`];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0)
      throw new Error(`LATCHKEY_WEBHOOK_${name} takes a whole positive number (milliseconds or a count)`);
    return n;
  };
  const timeoutMs = num("TIMEOUT_MS", 10_000);
  return {
    retryBaseMs: num("RETRY_BASE_MS", 5_000),
    retryMaxMs: num("RETRY_MAX_MS", 3_600_000),
    retryForMs: num("RETRY_FOR_MS", 24 * 3_600_000),
    pollMs: num("POLL_MS", 1_000),
    timeoutMs,
    leaseMs: Math.max(num("LEASE_MS", timeoutMs + 20_000), timeoutMs + 500),
    concurrency: num("CONCURRENCY", 8),
  };
}
