import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * A local WalletConnect v2 relay, for dev and tests only (WALLETS-AND-CHAINS.md §1): the `irn_*` JSON-RPC
 * methods over WebSocket, plus the `wc_proposeSession` / `wc_approveSession` methods that sign-client 2.2x
 * publishes the proposal and the approval with. It does NOT verify the auth JWT (it only reads its `iss`, the
 * client's did:key, to know who published what), ignores `tag`/`prompt`/`tvf`, keeps everything in memory and
 * has no rate limits: never expose it beyond loopback, never use it in production.
 */
export interface WalletConnectRelay {
  /** e.g. ws://127.0.0.1:45123: the clients' `relayUrl`. */
  url: string;
  port: number;
  /** How many WebSocket connections are open now (a test can check that clients went away). */
  connections(): number;
  /** Closes every connection and the server, and stops the pings. Idempotent. */
  close(): Promise<void>;
}

export interface WalletConnectRelayOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Called with what happens (connections, methods): e.g. `(...a) => console.log("relay", ...a)`. */
  log?: (...args: unknown[]) => void;
  /**
   * WebSocket ping period, ms (default 20 s; 0 = none). Node clients drop a socket that saw no ping for 35 s and
   * reconnect: harmless, but slower and noisier.
   */
  pingMs?: number;
}

/** How long a published message waits for a subscriber when the publisher gives no `ttl`, in seconds. */
const DEFAULT_TTL_S = 300;

/** One client connection, and who it is. */
interface Client {
  socket: WebSocket;
  /** The auth JWT's `iss` (the client's did:key: the same across its reconnects), or a random id without one. */
  id: string;
  topics: Set<string>;
}

/** A message that waits in a topic's mailbox until a subscriber other than its publisher got it. */
interface Stored {
  data: { topic: string; message: string; publishedAt: number; attestation?: string };
  from: string;
  expires: number;
}

interface PublishParams {
  topic: string;
  message: string;
  ttl?: number;
  attestation?: string;
}

/** What sign-client sends with `wc_proposeSession` (the dapp). */
interface ProposeSessionParams {
  pairingTopic: string;
  sessionProposal: string;
  ttl?: number;
  attestation?: string;
}

/** What sign-client sends with `wc_approveSession` (the wallet). */
interface ApproveSessionParams {
  pairingTopic: string;
  sessionTopic: string;
  sessionProposalResponse: string;
  sessionSettlementRequest: string;
  ttl?: number;
}

type Params = Record<string, unknown>;

/**
 * Starts the relay. Messages are kept per topic until delivered to a subscriber other than their publisher
 * (the wallet subscribes to the pairing topic only after the dapp published its proposal), and the mailbox is
 * flushed when a client subscribes, so `irn_batchFetchMessages` answers nothing.
 * @example
 * const relay = await startWalletConnectRelay();
 * const core = new Core({ projectId: "local-dev", relayUrl: relay.url });
 * // …
 * await relay.close();
 */
export async function startWalletConnectRelay(
  options: WalletConnectRelayOptions = {},
): Promise<WalletConnectRelay> {
  const { host = "127.0.0.1", port = 0, log = () => {}, pingMs = 20_000 } = options;
  const subscribers = new Map<string, Set<Client>>();
  const mailbox = new Map<string, Stored[]>();
  const clients = new Set<Client>();
  let nextId = 0;

  /** Sends every stored, unexpired message of `topic` to its subscribers except its publisher. */
  const flush = (topic: string) => {
    const now = Date.now();
    const kept = (mailbox.get(topic) ?? []).filter((stored) => {
      if (stored.expires <= now) return false;
      const peers = [...(subscribers.get(topic) ?? [])].filter(
        (c) => c.id !== stored.from && c.socket.readyState === c.socket.OPEN,
      );
      for (const peer of peers) deliver(peer, stored);
      return peers.length === 0;
    });
    if (kept.length) mailbox.set(topic, kept);
    else mailbox.delete(topic);
  };
  const deliver = (client: Client, stored: Stored) => {
    // ids only need to be unique per connection; the client acknowledges with a result we ignore
    const id = Date.now() * 1000 + (nextId++ % 1000);
    const params = { id: subscriptionId(stored.data.topic), data: stored.data };
    client.socket.send(JSON.stringify({ id, jsonrpc: "2.0", method: "irn_subscription", params }));
  };
  const publish = (client: Client, { topic, message, ttl = DEFAULT_TTL_S, attestation }: PublishParams) => {
    const data = { topic, message, publishedAt: Date.now(), ...(attestation ? { attestation } : {}) };
    const stored = { data, from: client.id, expires: Date.now() + ttl * 1000 };
    mailbox.set(topic, [...(mailbox.get(topic) ?? []), stored]);
    flush(topic);
    return true;
  };
  const subscribe = (client: Client, topic: string) => {
    const set = subscribers.get(topic) ?? new Set<Client>();
    subscribers.set(topic, set);
    set.add(client);
    client.topics.add(topic);
    setImmediate(() => flush(topic)); // after the subscribe answer went out
    return subscriptionId(topic);
  };
  const unsubscribe = (client: Client, topic: string) => {
    subscribers.get(topic)?.delete(client);
    client.topics.delete(topic);
    return true;
  };

  const methods: Record<string, (client: Client, params: Params) => unknown> = {
    irn_subscribe: (c, p) => subscribe(c, p.topic as string),
    irn_batchSubscribe: (c, p) => (p.topics as string[]).map((t) => subscribe(c, t)),
    irn_unsubscribe: (c, p) => unsubscribe(c, p.topic as string),
    irn_batchUnsubscribe: (c, p) => {
      for (const s of p.subscriptions as { topic: string }[]) unsubscribe(c, s.topic);
      return true;
    },
    irn_publish: (c, p) => publish(c, p as unknown as PublishParams),
    irn_batchPublish: (c, p) => {
      for (const m of p.messages as PublishParams[]) publish(c, m);
      return true;
    },
    irn_batchFetchMessages: () => ({ messages: [], hasMore: false }),
    // the proposer (dapp) is subscribed to the pairing topic, to hear the wallet's answer
    wc_proposeSession: (c, p) => {
      const { pairingTopic, sessionProposal, ttl, attestation } = p as unknown as ProposeSessionParams;
      subscribe(c, pairingTopic);
      return publish(c, { topic: pairingTopic, message: sessionProposal, ttl, attestation });
    },
    // the approver (wallet) is subscribed to the session topic, to hear the dapp's settlement ack and requests
    wc_approveSession: (c, p) => {
      const { pairingTopic, sessionTopic, sessionProposalResponse, sessionSettlementRequest, ttl } =
        p as unknown as ApproveSessionParams;
      subscribe(c, sessionTopic);
      publish(c, { topic: pairingTopic, message: sessionProposalResponse, ttl });
      return publish(c, { topic: sessionTopic, message: sessionSettlementRequest, ttl });
    },
  };

  const onMessage = (client: Client, raw: string) => {
    let message: { id?: number; method?: string; params?: Params };
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (!message.method) return; // a client's ack of an irn_subscription
    log("<-", message.method, client.id);
    const method = methods[message.method];
    let answer: Record<string, unknown>;
    try {
      if (!method) throw Object.assign(new Error(`unknown method ${message.method}`), { code: -32601 });
      answer = { result: method(client, message.params ?? {}) };
    } catch (error) {
      const { code = -32602, message: text } = error as { code?: number; message: string };
      answer = { error: { code, message: text } };
    }
    client.socket.send(JSON.stringify({ id: message.id, jsonrpc: "2.0", ...answer }));
  };

  const wss = new WebSocketServer({ host, port });
  wss.on("connection", (socket: WebSocket, request: IncomingMessage) => {
    const query = new URL(request.url ?? "/", "http://relay").searchParams;
    const client: Client = { socket, id: issuerOf(query.get("auth")) ?? randomUUID(), topics: new Set() };
    clients.add(client);
    log("connect", query.get("projectId"), client.id);
    socket.on("message", (raw) => onMessage(client, raw.toString()));
    socket.on("error", () => {});
    socket.on("close", () => {
      clients.delete(client);
      for (const topic of client.topics) subscribers.get(topic)?.delete(client);
      log("disconnect", client.id);
    });
  });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  const ping = () => {
    for (const socket of wss.clients) socket.ping();
  };
  const pinger = pingMs ? setInterval(ping, pingMs) : undefined;
  pinger?.unref();
  const bound = (wss.address() as { port: number }).port;

  let closing: Promise<void> | undefined;
  return {
    url: `ws://${host}:${bound}`,
    port: bound,
    connections: () => clients.size,
    close() {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(pinger);
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      });
      return closing;
    },
  };
}

/** The relay's subscription id of a topic (any stable id will do: the clients only match it back). */
function subscriptionId(topic: string): string {
  return createHash("sha256").update(topic).digest("hex");
}

/** The `iss` of the auth JWT that the clients put in the URL (read, not verified), if there is one. */
function issuerOf(jwt: string | null): string | undefined {
  const payload = jwt?.split(".")[1];
  if (!payload) return undefined;
  try {
    const { iss } = JSON.parse(Buffer.from(payload, "base64url").toString()) as { iss?: unknown };
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}
