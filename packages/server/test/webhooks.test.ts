/**
 * Webhooks (features/webhooks): an app's endpoints get its events signed per Standard Webhooks, verified
 * here by the `standardwebhooks` library at a real loopback receiver; a receiver that is down (503, or a
 * closed port) gets everything afterwards; every attempt is in the delivery log; a delivery can be sent
 * again by hand; one that fails for the whole retry window is marked failed. No secret is ever sent, and
 * the secret is sealed at rest. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { base58 } from "@scure/base";
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { Webhook } from "standardwebhooks";
import { keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import { systemTransfer } from "../../../test-support/solana/transfer";
import type { AppConfig } from "../src/config";
import { WEBHOOK_EVENT_TYPES } from "../src/features/webhooks/config";
import {
  listWebhookAttempts,
  listWebhookDeliveries,
  redeliverWebhook,
} from "../src/features/webhooks/deliveryLog";
import {
  type EmailUser,
  freshDatabase,
  type Harness,
  post,
  type Smtp,
  signBody,
  signUpByEmail,
  stamped,
  startSmtp,
} from "./helpers";
import { closedPort, newSecret, type Receiver, startReceiver, until } from "./webhooks-receiver";

// The receivers listen on 127.0.0.1: outside dev mode, loopback needs the endpoint's opt-in.
const app = (id: string, webhooks: NonNullable<AppConfig["webhooks"]>): AppConfig => ({
  id,
  name: id,
  apiKeys: [`lk_${id}_key_0123456789abcdef`],
  allowedOrigins: [`http://${id}.test`],
  emailMode: "OTP",
  webhooks: webhooks.map((e) => ({ allowPrivateNetwork: true, ...e })),
});
const ADMIN_KEY = generateP256PrivateKey();
const keyOf = (id: string) => ({ authorization: `Bearer lk_${id}_key_0123456789abcdef` });

describe.each(["sqlite", "postgres"] as const)("webhooks (%s)", (kind) => {
  const secret = newSecret();
  const brokenSecret = newSecret();
  const downSecret = newSecret();
  let receiver: Receiver;
  let quiet: Receiver;
  let broken: Receiver;
  let down: Receiver | undefined;
  let downPort: number;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let smtp: Smtp;
  let t: TestService;
  let h: Harness;
  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    quiet = await startReceiver(secret);
    broken = await startReceiver(brokenSecret);
    broken.setMode(500);
    downPort = await closedPort();
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    const clock = {
      offset: 0,
      get now() {
        return Date.now() + this.offset;
      },
      advance(ms: number) {
        this.offset += ms;
      },
    };
    t = await startTestService({
      db: database.url,
      smtpUrl: smtp.url,
      logLevel: "silent",
      now: () => clock.now,
      env: { ...process.env, LATCHKEY_WEBHOOK_RETRY_BASE_MS: "100", LATCHKEY_WEBHOOK_POLL_MS: "100" },
      apps: [
        app("hooks", [
          { url: receiver.url, events: [...WEBHOOK_EVENT_TYPES], secret },
          // Wants none of what a sign-up makes: gets nothing.
          { url: quiet.url, events: ["mfa.added", "wallet.exported"], secret },
        ]),
        app("hooks-down", [
          { url: `http://127.0.0.1:${downPort}/hooks`, events: ["user.created"], secret: downSecret },
        ]),
        app("hooks-broken", [{ url: broken.url, events: ["user.created"], secret: brokenSecret }]),
        app("no-hooks", []),
        {
          ...app("hooks-sol", [{ url: receiver.url, events: ["sponsorship.spent"], secret }]),
          sponsorship: { solanaPolicies: [{ id: "pol_sol" }] },
        },
        {
          ...app("hooks-deny", [{ url: receiver.url, events: ["policy.denied"], secret }]),
          signingPolicy: { rawPayloads: "deny" },
        },
        {
          ...app("hooks-held", [
            { url: receiver.url, events: ["activity.consensus_needed", "activity.rejected"], secret },
          ]),
          signingPolicy: {
            rawPayloads: "needs_approval",
            adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
          },
        },
      ],
    });
    h = { service: t.service, url: t.url, smtp, clock, close: async () => {} };
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    for (const r of [receiver, quiet, broken, down]) await r?.close();
    await database?.drop();
  });

  const db = () => t.service.ctx.db;
  const ofUser = (r: Receiver, user: EmailUser) =>
    r.received.filter((w) => w.payload?.data.userId === user.userId);

  it("a sign-up and its sign-in arrive as user.created and user.signed_in, each signature verified", async () => {
    const ada = await signUpByEmail(h, unique("ada"), keyOf("hooks"));
    await until("ada's two events", () => new Set(ofUser(receiver, ada).map((w) => w.id)).size === 2);
    const got = ofUser(receiver, ada);
    expect(got.every((w) => w.verifyError === undefined)).toBe(true);
    expect(got.map((w) => w.payload?.type).sort()).toEqual(["user.created", "user.signed_in"]);
    const created = got.find((w) => w.payload?.type === "user.created");
    expect(created?.payload?.data).toEqual({ appId: "hooks", userId: ada.userId, method: "email" });
    expect(Date.parse(created?.payload?.timestamp ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(created?.id).toMatch(/^msg_/);
    expect(created?.headers["content-type"]).toBe("application/json");
    // The signature is the secret's: another secret does not verify it.
    const other = new Webhook(newSecret());
    expect(() =>
      other.verify(created?.body ?? "", {
        "webhook-id": created?.id ?? "",
        "webhook-timestamp": String(created?.headers["webhook-timestamp"]),
        "webhook-signature": String(created?.headers["webhook-signature"]),
      }),
    ).toThrow();
    // The endpoint that wants other events got none of these; the log says each delivery took one 200.
    expect(quiet.received).toHaveLength(0);
    const adasLogged = async () =>
      (await listWebhookDeliveries(db(), { appId: "hooks" })).items.filter((d) =>
        got.some((w) => w.id === d.eventId),
      );
    // The receiver answered before the service wrote down the answer.
    await until("both logged", async () => (await adasLogged()).every((d) => d.status === "delivered"));
    const adas = await adasLogged();
    expect(adas.map((d) => [d.status, d.attempts, d.url])).toEqual([
      ["delivered", 1, receiver.url],
      ["delivered", 1, receiver.url],
    ]);
    const attempts = await listWebhookAttempts(db(), { appId: "hooks", deliveryId: adas[0]?.id ?? "" });
    expect(attempts?.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([[1, 200, null]]);
    // Another app's admin sees neither the delivery nor its attempts.
    expect((await listWebhookDeliveries(db(), { appId: "no-hooks" })).items).toHaveLength(0);
    expect(await listWebhookAttempts(db(), { appId: "no-hooks", deliveryId: adas[0]?.id ?? "" })).toBeNull();
  });

  it("no secret is ever sent, and the secret is sealed at rest", async () => {
    const raw = secret.slice("whsec_".length);
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const w of receiver.received) {
      expect(w.body).not.toContain(raw);
      expect(w.body).not.toContain("whsec_");
      expect(JSON.stringify(w.headers)).not.toContain(raw);
    }
    const rows = await db().selectFrom("webhook_endpoints").select(["url", "sealed_secret"]).execute();
    expect(rows).toHaveLength(7);
    for (const r of rows) {
      expect(r.sealed_secret).toMatch(/^v1\./);
      for (const s of [secret, brokenSecret, downSecret]) {
        expect(r.sealed_secret).not.toContain(s.slice("whsec_".length));
        expect(Buffer.from(r.sealed_secret).toString("base64")).not.toContain(s.slice(6));
      }
    }
  });

  it("a receiver answering 503 for a while gets everything afterwards", async () => {
    receiver.setMode(503);
    const bob = await signUpByEmail(h, unique("bob"), keyOf("hooks"));
    // Refused at least twice each (a first attempt and a retry), then the receiver is back.
    await until("two refusals of each of bob's events", () => {
      const refused = ofUser(receiver, bob).filter((w) => w.answered === 503);
      const ids = [...new Set(refused.map((w) => w.id))];
      return ids.length === 2 && ids.every((id) => refused.filter((w) => w.id === id).length >= 2);
    });
    receiver.setMode(200);
    await until(
      "bob's events delivered",
      () => ofUser(receiver, bob).filter((w) => w.answered === 200).length >= 2,
    );
    const got = ofUser(receiver, bob);
    expect(got.every((w) => w.verifyError === undefined)).toBe(true);
    const delivered = got.filter((w) => w.answered === 200);
    expect(new Set(delivered.map((w) => w.payload?.type))).toEqual(
      new Set(["user.created", "user.signed_in"]),
    );
    // Retries carry the same id: one event, however many attempts.
    expect(new Set(got.map((w) => w.id)).size).toBe(2);
    await until("the log shows it", async () => {
      const log = await listWebhookDeliveries(db(), { appId: "hooks", eventId: delivered[0]?.id ?? "" });
      return log.items[0]?.status === "delivered";
    });
    const [d] = (await listWebhookDeliveries(db(), { appId: "hooks", eventId: delivered[0]?.id ?? "" }))
      .items;
    const attempts = (await listWebhookAttempts(db(), { appId: "hooks", deliveryId: d?.id ?? "" })) ?? [];
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.slice(0, -1).every((a) => a.statusCode === 503 && a.error === "HTTP 503")).toBe(true);
    expect(attempts.at(-1)?.statusCode).toBe(200);
    expect(attempts.every((a) => a.durationMs >= 0)).toBe(true);
  });

  it("an endpoint whose port is closed for a while gets everything once it listens", async () => {
    const carol = await signUpByEmail(h, unique("carol"), keyOf("hooks-down"));
    await until("two refused attempts", async () => {
      const [d] = (await listWebhookDeliveries(db(), { appId: "hooks-down" })).items;
      return (d?.attempts ?? 0) >= 2;
    });
    const [d] = (await listWebhookDeliveries(db(), { appId: "hooks-down" })).items;
    expect(d?.status).toBe("pending");
    expect(d?.lastStatusCode).toBeNull();
    expect(d?.lastError).toBe("ECONNREFUSED");
    down = await startReceiver(downSecret, { port: downPort });
    await until("carol's sign-up delivered", () => (down?.delivered().length ?? 0) >= 1);
    const got = down.delivered();
    expect(got.map((w) => [w.payload?.type, w.payload?.data.userId, w.verifyError])).toEqual([
      ["user.created", carol.userId, undefined],
    ]);
  });

  it("a delivery sent again by hand arrives again under the same webhook-id", async () => {
    const log = await listWebhookDeliveries(db(), {
      appId: "hooks",
      eventType: "user.created",
      status: "delivered",
    });
    const first = log.items.at(-1);
    expect(first).toBeDefined();
    const before = receiver.received.filter((w) => w.id === first?.eventId).length;
    // Another app cannot touch it.
    expect(await redeliverWebhook(t.service.ctx, { appId: "no-hooks", deliveryId: first?.id ?? "" })).toBe(
      false,
    );
    expect(await redeliverWebhook(t.service.ctx, { appId: "hooks", deliveryId: first?.id ?? "" })).toBe(true);
    await until(
      "the redelivery",
      () => receiver.received.filter((w) => w.id === first?.eventId).length > before,
    );
    const again = receiver.received.filter((w) => w.id === first?.eventId).at(-1);
    expect(again?.verifyError).toBeUndefined();
    expect(again?.body).toBe(receiver.received.find((w) => w.id === first?.eventId)?.body);
    await until("logged", async () => {
      const attempts = await listWebhookAttempts(db(), { appId: "hooks", deliveryId: first?.id ?? "" });
      return (attempts?.length ?? 0) === 2;
    });
  });

  it("the log pages newest first", async () => {
    const all = await listWebhookDeliveries(db(), { appId: "hooks", limit: 200 });
    expect(all.items.length).toBeGreaterThanOrEqual(4);
    const page1 = await listWebhookDeliveries(db(), { appId: "hooks", limit: 2 });
    const page2 = await listWebhookDeliveries(db(), {
      appId: "hooks",
      limit: 2,
      cursor: page1.nextCursor ?? "",
    });
    expect([...page1.items, ...page2.items].map((d) => d.id)).toEqual(all.items.slice(0, 4).map((d) => d.id));
    await expect(listWebhookDeliveries(db(), { appId: "hooks", cursor: "nope" })).rejects.toThrow(RangeError);
  });

  it("a grant the user makes and then revokes arrives as grant.created and grant.revoked", async () => {
    const gil = await signUpByEmail(h, unique("gil"), keyOf("hooks"));
    const operation = (path: string, type: string, parameters: object) =>
      post(
        h.url,
        path,
        stamped(
          "/public/v1/query/whoami",
          { type, timestampMs: String(Date.now()), organizationId: gil.orgId, parameters },
          gil.sessionKey,
        ),
        keyOf("hooks"),
      );
    const expiresAt = h.clock.now + 60 * 60 * 1000;
    const made = await operation("/signer/v1/grants/create", "OPERATION_TYPE_CREATE_GRANT", {
      permissions: { chainIds: [31337], maxOperations: 5, expiresAt, description: "Trading bot" },
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    const grantId = (made.json.grant as { grantId: string }).grantId;
    const revoked = await operation("/signer/v1/grants/revoke", "OPERATION_TYPE_REVOKE_GRANT", { grantId });
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);

    const grantEvents = () => ofUser(receiver, gil).filter((w) => w.payload?.type.startsWith("grant."));
    await until("grant.revoked", () => grantEvents().filter((w) => w.answered === 200).length === 2);
    const delivered = grantEvents()
      .map((w) => [w.payload?.type, w.payload?.data, w.verifyError])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(delivered).toEqual([
      [
        "grant.created",
        {
          appId: "hooks",
          userId: gil.userId,
          grantId,
          permissions: {
            chainIds: [31337],
            valuePerTransaction: "0",
            maxOperations: 5,
            expiresAt,
            messages: false,
            typedData: false,
            description: "Trading bot",
          },
        },
        undefined,
      ],
      ["grant.revoked", { appId: "hooks", userId: gil.userId, grantId }, undefined],
    ]);
    // The endpoint that wants neither got neither.
    expect(ofUser(quiet, gil)).toEqual([]);
  });

  it("a signature the policy refuses is policy.denied; one it holds is activity.consensus_needed, then activity.rejected", async () => {
    const signRaw = (u: EmailUser, appId: string) => {
      const body = signBody(u.orgId, u.address, keccak256("0x1234").slice(2), "HASH_FUNCTION_NO_OP");
      return post(
        h.url,
        "/signer/v1/sign-payload",
        stamped("/public/v1/submit/sign_raw_payload", body, u.sessionKey),
        keyOf(appId),
      );
    };
    const eve = await signUpByEmail(h, unique("eve"), keyOf("hooks-deny"));
    const denied = await signRaw(eve, "hooks-deny");
    expect([denied.status, denied.json.code]).toEqual([403, "POLICY_DENIED"]);
    const deniedId = (denied.json.data as { activityId: string }).activityId;
    await until("policy.denied", () => ofUser(receiver, eve).some((w) => w.answered === 200));
    expect(ofUser(receiver, eve).map((w) => [w.payload?.type, w.payload?.data, w.verifyError])).toEqual([
      [
        "policy.denied",
        {
          appId: "hooks-deny",
          userId: eve.userId,
          activityId: deniedId,
          type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
          ruleId: "rawPayloads",
        },
        undefined,
      ],
    ]);

    const fay = await signUpByEmail(h, unique("fay"), keyOf("hooks-held"));
    const held = await signRaw(fay, "hooks-held");
    expect([held.status, held.json.code]).toEqual([409, "ACTIVITY_CONSENSUS_NEEDED"]);
    const heldId = (held.json.data as { activityId: string }).activityId;
    await until("activity.consensus_needed", () => ofUser(receiver, fay).some((w) => w.answered === 200));
    const appOrg = (await t.service.ctx.apps.byId("hooks-held"))?.orgId as string;
    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
      timestampMs: String(Date.now()),
      organizationId: appOrg,
      parameters: { activityId: heldId },
    });
    const stamp = stampWithPrivateKey(text, ADMIN_KEY);
    const rejected = await post(h.url, "/public/v1/submit/reject_activity", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    expect(rejected.status, JSON.stringify(rejected.json)).toBe(200);
    await until(
      "activity.rejected",
      () => ofUser(receiver, fay).filter((w) => w.answered === 200).length === 2,
    );
    const got = ofUser(receiver, fay);
    expect(got.map((w) => [w.payload?.type, w.payload?.data.activityId, w.verifyError])).toEqual([
      ["activity.consensus_needed", heldId, undefined],
      ["activity.rejected", heldId, undefined],
    ]);
    expect(got[1]?.payload?.data.admin).toBe("ops");
  });

  it("a sponsored Solana transaction is sponsorship.spent, once however often it is asked for", async () => {
    const gus = await signUpByEmail(h, unique("gus"), keyOf("hooks-sol"));
    // No Solana node is configured: the service skips the blockhash check, so any blockhash does.
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(gus.solanaAddress), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash(base58.encode(randomBytes(32))), lastValidBlockHeight: 1_000n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions([systemTransfer(gus.solanaAddress, gus.solanaAddress, 1n)], m),
    );
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "latchkey_requestFeePayer",
      params: [
        {
          policyId: "pol_sol",
          serializedTransaction: getBase64EncodedWireTransaction(compileTransaction(message)),
        },
      ],
    };
    for (let i = 0; i < 2; i++) {
      const r = await post(h.url, "/rpc/v1", body, keyOf("hooks-sol"));
      expect(r.json.error, JSON.stringify(r.json)).toBeUndefined();
    }
    await until("sponsorship.spent", () => ofUser(receiver, gus).some((w) => w.answered === 200));
    await new Promise((r) => setTimeout(r, 500));
    const got = ofUser(receiver, gus);
    expect(got.map((w) => [w.payload?.type, w.verifyError])).toEqual([["sponsorship.spent", undefined]]);
    expect(got[0]?.payload?.data).toEqual({
      appId: "hooks-sol",
      userId: gus.userId,
      policyId: "pol_sol",
      day: new Date().toISOString().slice(0, 10),
      amount: expect.stringMatching(/^[1-9]\d*$/),
      unit: "lamports",
      operationAdded: true,
    });
  });

  it("a delivery refused for the whole retry window is marked failed and tried no more", async () => {
    const dave = await signUpByEmail(h, unique("dave"), keyOf("hooks-broken"));
    await until("a refused attempt", () =>
      broken.received.some((w) => w.payload?.data.userId === dave.userId),
    );
    // A day and an hour later (the service's clock): the next refusal is the last.
    h.clock.advance(25 * 3_600_000);
    await until("failed", async () => {
      const [d] = (await listWebhookDeliveries(db(), { appId: "hooks-broken" })).items;
      return d?.status === "failed";
    });
    const [d] = (await listWebhookDeliveries(db(), { appId: "hooks-broken" })).items;
    const count = broken.received.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(broken.received.length).toBe(count);
    expect(d?.lastStatusCode).toBe(500);
    expect(d?.nextAttemptAt).toBeNull();
    expect(
      (await listWebhookDeliveries(db(), { appId: "hooks-broken", status: "failed" })).items,
    ).toHaveLength(1);
  });
});
