import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** What a webhook request carried, and whether its signature verified with the endpoint's secret. */
export interface ReceivedWebhook {
  id: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** The payload `Webhook.verify` returned; undefined when verification failed. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  verifyError: string | undefined;
  /** What the receiver answered (0: held, never answered). */
  answered: number;
}

/**
 * A real webhook endpoint on a loopback port: verifies every request with the `standardwebhooks`
 * library and answers as `mode` says: 200, a status such as 503, or "hold" (never answers).
 */
export async function startReceiver(secret: string, options: { port?: number } = {}) {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  let mode: number | "hold" = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const entry: ReceivedWebhook = {
        id: String(req.headers["webhook-id"] ?? ""),
        body,
        headers: req.headers,
        payload: undefined,
        verifyError: undefined,
        answered: 0,
      };
      try {
        entry.payload = new Webhook(secret).verify(body, {
          "webhook-id": String(req.headers["webhook-id"] ?? ""),
          "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
          "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
        }) as ReceivedWebhook["payload"];
      } catch (e) {
        entry.verifyError = (e as Error).message;
      }
      received.push(entry);
      if (mode === "hold") {
        held.push(res);
        return;
      }
      entry.answered = mode;
      res.writeHead(mode, { "content-type": "text/plain" }).end(mode === 200 ? "ok" : "not now");
    });
  });
  server.on("clientError", (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(options.port ?? 0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    setMode(m: number | "hold") {
      mode = m;
    },
    /** Requests answered 2xx: what was delivered. */
    delivered: () => received.filter((r) => r.answered >= 200 && r.answered < 300),
    /** Event ids delivered at least once. */
    deliveredIds: () => new Set(received.filter((r) => r.answered === 200).map((r) => r.id)),
    heldCount: () => held.length,
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A loopback port that nothing listens on (taken, then let go). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Polls `check` until it returns true, or fails after `timeoutMs` with `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A fresh Standard Webhooks secret. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
