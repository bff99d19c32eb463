/**
 * Webhooks survive a crash: `latchkey serve` killed with SIGKILL while an endpoint holds a delivery open,
 * then started again on the same database, delivers every event (at least once: the endpoint de-duplicates
 * by `webhook-id`), each signature verified with the `standardwebhooks` library. Two instances on one
 * database deliver each event once. SQLite and PostgreSQL, each instance its own process.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db";
import { WEBHOOK_EVENT_TYPES } from "../src/features/webhooks/config";
import {
  freshDatabase,
  type Harness,
  type Instance,
  type Smtp,
  serve,
  signUpByEmail,
  startSmtp,
  stop,
} from "./helpers";
import { newSecret, type Receiver, startReceiver, until } from "./webhooks-receiver";

const API_KEY = "lk_killed_key_0123456789abcdef";
const KEY = { authorization: `Bearer ${API_KEY}` };

describe.each(["sqlite", "postgres"] as const)("webhooks across a SIGKILL (%s)", (kind) => {
  const secret = newSecret();
  let receiver: Receiver;
  let smtp: Smtp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let args: string[];
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const instances: Instance[] = [];
  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  /** Every event the outbox holds, read from the database itself. */
  async function storedEvents(): Promise<Set<string>> {
    const opened = openDatabase(database.url);
    try {
      const rows = await opened.db.selectFrom("webhook_events").select("id").execute();
      return new Set(rows.map((r) => r.id));
    } finally {
      await opened.close();
    }
  }

  async function start(): Promise<Instance> {
    const instance = await serve(args, env, dir);
    instances.push(instance);
    return instance;
  }

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    dir = mkdtempSync(join(tmpdir(), "latchkey-webhooks-"));
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        apps: [
          {
            id: "killed",
            name: "Killed",
            apiKeys: [API_KEY],
            emailMode: "OTP",
            webhooks: [{ url: receiver.url, events: WEBHOOK_EVENT_TYPES, secret, allowPrivateNetwork: true }],
          },
        ],
      }),
    );
    env = {
      ...process.env,
      LATCHKEY_MASTER_KEY: "44".repeat(32),
      LATCHKEY_SMTP_URL: smtp.url,
      LATCHKEY_WEBHOOK_TIMEOUT_MS: "1500",
      LATCHKEY_WEBHOOK_LEASE_MS: "2500",
      LATCHKEY_WEBHOOK_RETRY_BASE_MS: "200",
      LATCHKEY_WEBHOOK_POLL_MS: "100",
    };
    args = ["--db", database.url, "--config", config];
  }, 60_000);

  afterAll(async () => {
    for (const i of instances) await stop(i.child);
    await receiver?.close();
    await smtp?.close();
    await database?.drop();
  });

  it("killed mid-delivery and started again: every event arrives, verified, each id once after de-duplication", async () => {
    receiver.setMode("hold");
    const a = await start();
    const h = { url: a.url, smtp } as Harness;
    const users: { userId: string }[] = [];
    for (const name of ["ann", "ben"]) users.push(await signUpByEmail(h, unique(name), KEY));
    await until("a delivery held open by the endpoint", () => receiver.heldCount() >= 1);
    await stop(a.child, "SIGKILL");
    const held = new Set(receiver.received.map((w) => w.id));
    const expected = await storedEvents();
    // A sign-up and a sign-in each, nothing else.
    expect(expected.size).toBe(4);
    expect(receiver.deliveredIds().size).toBe(0);

    receiver.setMode(200);
    await start();
    await until(
      "every event delivered",
      () => [...expected].every((id) => receiver.deliveredIds().has(id)),
      30_000,
    );
    expect(receiver.received.every((w) => w.verifyError === undefined)).toBe(true);
    // After de-duplication by webhook-id: exactly the stored events, the held ones among them.
    expect(receiver.deliveredIds()).toEqual(expected);
    for (const id of held) expect(expected.has(id)).toBe(true);
    const byId = new Map(receiver.delivered().map((w) => [w.id, w.payload]));
    const types = [...byId.values()].map((p) => `${p?.type}:${p?.data.userId}`).sort();
    expect(types).toEqual(
      users.flatMap((u) => [`user.created:${u.userId}`, `user.signed_in:${u.userId}`]).sort(),
    );
  }, 120_000);

  it("two instances on one database deliver each event once", async () => {
    const b = instances.at(-1) as Instance;
    const c = await start();
    const before = new Set(receiver.received.map((w) => w.id));
    for (const [i, at] of [b, c].entries())
      await signUpByEmail({ url: at.url, smtp } as Harness, unique(`pair${i}`), KEY);
    const fresh = async () => [...(await storedEvents())].filter((id) => !before.has(id));
    const expected = await fresh();
    expect(expected).toHaveLength(4);
    await until(
      "every new event delivered",
      () => expected.every((id) => receiver.deliveredIds().has(id)),
      30_000,
    );
    // Both instances poll every 100 ms: give a second copy time to show, were there one.
    await new Promise((r) => setTimeout(r, 1000));
    for (const id of expected) expect(receiver.received.filter((w) => w.id === id)).toHaveLength(1);
    expect(receiver.received.every((w) => w.verifyError === undefined)).toBe(true);
  }, 120_000);
});
