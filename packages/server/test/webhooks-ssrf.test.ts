/**
 * Webhooks and non-public addresses (features/webhooks/addressPolicy.ts, postWebhook.ts): a host name is
 * resolved before each delivery and every answer checked; one in a private, link-local (cloud metadata)
 * or loopback range fails the delivery at once with the reason in the log, unless the endpoint opts in;
 * an opted-in delivery goes to the address that was checked (not a second lookup). Loopback outside dev
 * mode is refused when the service starts. Host names resolve through a stub: nothing is sent anywhere
 * but 127.0.0.1. On SQLite (SCENARIO_DATABASES in helpers.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import { listWebhookAttempts, listWebhookDeliveries } from "../src/features/webhooks/deliveryLog";
import {
  freshDatabase,
  type Harness,
  post,
  SCENARIO_DATABASES,
  type Smtp,
  signUpByEmail,
  startSmtp,
  targetKey,
} from "./helpers";
import { newSecret, type Receiver, startReceiver, until } from "./webhooks-receiver";

const app = (id: string, webhooks: NonNullable<AppConfig["webhooks"]>): AppConfig => ({
  id,
  name: id,
  apiKeys: [`lk_${id}_key_0123456789abcdef`],
  allowedOrigins: [`http://${id}.test`],
  emailMode: "OTP",
  webhooks,
});
const keyOf = (id: string) => ({ authorization: `Bearer lk_${id}_key_0123456789abcdef` });

/** What the stub resolver answers: never a real lookup. */
const ANSWERS: Record<string, string[]> = {
  "metadata.rebind.test": ["169.254.169.254"],
  "mixed.rebind.test": ["93.184.215.14", "10.0.0.7"],
  "mapped.rebind.test": ["::ffff:192.168.1.1"],
  "loop.rebind.test": ["127.0.0.1"],
  "receiver.rebind.test": ["127.0.0.1"],
};

describe.each(SCENARIO_DATABASES)("webhooks to non-public addresses (%s)", (kind) => {
  const secret = newSecret();
  let receiver: Receiver;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let smtp: Smtp;
  let t: TestService;
  let h: Harness;
  const looked: string[] = [];
  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    const refused = (id: string, host: string) =>
      app(id, [{ url: `https://${host}/in`, events: ["user.created"], secret }]);
    t = await startTestService({
      db: database.url,
      smtpUrl: smtp.url,
      logLevel: "silent",
      env: { ...process.env, LATCHKEY_WEBHOOK_RETRY_BASE_MS: "100", LATCHKEY_WEBHOOK_POLL_MS: "100" },
      resolveWebhookHost: async (host) => {
        looked.push(host);
        const answers = ANSWERS[host];
        if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
        return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      },
      apps: [
        refused("metadata", "metadata.rebind.test"),
        refused("mixed", "mixed.rebind.test"),
        refused("mapped", "mapped.rebind.test"),
        refused("loop", "loop.rebind.test"),
        app("pinned", [
          {
            url: `http://receiver.rebind.test:${receiver.port}/hooks`,
            events: ["user.created"],
            secret,
            allowInsecureHttp: true,
            allowPrivateNetwork: true,
          },
        ]),
      ],
    });
    h = { service: t.service, url: t.url, smtp, clock: { now: 0, advance() {} }, close: async () => {} };
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await receiver?.close();
    await database?.drop();
  });

  const db = () => t.service.ctx.db;

  it.each([
    [
      "metadata",
      "metadata.rebind.test is 169.254.169.254, a link-local (169.254.0.0/16, cloud metadata) address",
    ],
    ["mixed", "mixed.rebind.test is 10.0.0.7, a private (10.0.0.0/8) address"],
    ["mapped", "mapped.rebind.test is ::ffff:192.168.1.1, a private (192.168.0.0/16) address"],
    ["loop", "loop.rebind.test is 127.0.0.1, a loopback (127.0.0.0/8) address"],
  ])(
    "a name resolving to a refused address (%s) fails the delivery at once, with the reason",
    async (id, why) => {
      await signUpByEmail(h, unique(id), keyOf(id));
      await until(`${id}'s delivery failed`, async () => {
        const [d] = (await listWebhookDeliveries(db(), { appId: id })).items;
        return d?.status === "failed";
      });
      const [d] = (await listWebhookDeliveries(db(), { appId: id })).items;
      const reason = `refused: ${why}, and the endpoint does not allow private networks`;
      expect([d?.status, d?.attempts, d?.lastStatusCode, d?.lastError]).toEqual(["failed", 1, null, reason]);
      const attempts = await listWebhookAttempts(db(), { appId: id, deliveryId: d?.id ?? "" });
      expect(attempts?.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([[1, null, reason]]);
      // Checked at delivery, against the resolver's answers.
      expect(looked).toContain(`${id}.rebind.test`);
    },
  );

  it("an opted-in endpoint is delivered to the address that was checked", async () => {
    const user = await signUpByEmail(h, unique("pinned"), keyOf("pinned"));
    // receiver.rebind.test resolves only through the stub: the request reached 127.0.0.1 because the
    // connection used the checked answer, with the name kept in the Host header.
    await until("delivered", () => receiver.delivered().length >= 1);
    const [got] = receiver.delivered();
    expect([got?.payload?.type, got?.payload?.data.userId, got?.verifyError]).toEqual([
      "user.created",
      user.userId,
      undefined,
    ]);
    expect(got?.headers.host).toBe(`receiver.rebind.test:${receiver.port}`);
  });

  it("loopback outside dev mode needs the opt-in: the service does not start", async () => {
    const other = await freshDatabase(kind);
    try {
      await expect(
        startTestService({
          db: other.url,
          smtpUrl: smtp.url,
          logLevel: "silent",
          apps: [app("local", [{ url: `${receiver.url}`, events: ["user.created"], secret }])],
        }),
      ).rejects.toThrow(
        `App local: webhook ${receiver.url} is a loopback (127.0.0.0/8) address: allowed in dev mode (latchkey serve --dev), otherwise only with allowPrivateNetwork: true on the endpoint`,
      );
    } finally {
      await other.drop();
    }
  });

  it("dev mode (latchkey serve --dev): loopback needs no opt-in, and is delivered to", async () => {
    const other = await freshDatabase(kind);
    const local = await startReceiver(secret);
    const dev = await startTestService({
      db: other.url,
      dev: true,
      logLevel: "silent",
      env: { ...process.env, LATCHKEY_WEBHOOK_POLL_MS: "100" },
      apps: [app("local", [{ url: local.url, events: ["user.created"], secret }])],
    });
    try {
      const email = unique("local");
      const key = targetKey();
      const s = await post(
        dev.url,
        "/signer/v1/signup",
        { email, targetPublicKey: key.publicKey },
        keyOf("local"),
      );
      const otpCode = await devMailbox(dev.service).otpCode(email);
      const body = { orgId: s.json.orgId, otpId: s.json.otpId, otpCode, targetPublicKey: key.publicKey };
      expect((await post(dev.url, "/signer/v1/otp", body, keyOf("local"))).status).toBe(200);
      await until("delivered in dev mode", () => local.delivered().length >= 1);
      expect(local.delivered()[0]?.payload?.data.userId).toBe(s.json.userId);
    } finally {
      await dev.close();
      await local.close();
      await other.drop();
    }
  });
});
