/**
 * Instances agree (DESIGN §10): two service processes on one PostgreSQL database, each on its own port
 * (not one cluster), behave as one service. The same code redeemed at both at once makes one session; a
 * stamp used at one is a replay at the other; a per-address limit counts both; a sign-up killed with
 * SIGKILL mid-flight at one leaves nothing half-written while the other keeps serving.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stampWithPrivateKey } from "@latchkey/protocol";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeFrom,
  freshDatabase,
  type Instance,
  post,
  type Smtp,
  serve,
  startSmtp,
  stop,
  targetKey,
} from "./helpers";

const API_KEY = "lk_instances_key_0123456789abcdef";
const KEY = { authorization: `Bearer ${API_KEY}` };
const MAILS_PER_EMAIL = 3;
const LOOKUPS_PER_IP = 4;

describe("two service processes on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let smtp: Smtp;
  let a: Instance;
  let b: Instance;
  let db: pg.Client;

  beforeAll(async () => {
    database = await freshDatabase("postgres");
    smtp = await startSmtp();
    const dir = mkdtempSync(join(tmpdir(), "latchkey-instances-"));
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        rateLimits: { mailsPerEmail: MAILS_PER_EMAIL, lookupsPerIp: LOOKUPS_PER_IP },
        apps: [{ id: "both", name: "Both", apiKeys: [API_KEY], emailMode: "OTP" }],
      }),
    );
    const env = {
      ...process.env,
      LATCHKEY_MASTER_KEY: "33".repeat(32),
      LATCHKEY_SMTP_URL: smtp.url,
    };
    const args = ["--db", database.url, "--config", config];
    // One after the other: the second finds the schema migrated.
    a = await serve(args, env, dir);
    b = await serve(args, env, dir);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  }, 150_000);

  afterAll(async () => {
    await stop(a?.child);
    await stop(b?.child);
    await db?.end();
    await smtp?.close();
    await database?.drop();
  });

  /** Sign-up at one instance: the orgId and otpId, and the code the mail carried. */
  async function signUp(at: Instance, email: string) {
    const target = targetKey();
    const before = smtp.mails.length;
    const res = await post(at.url, "/signer/v1/signup", { email, targetPublicKey: target.publicKey }, KEY);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const code = codeFrom((await smtp.waitFor(email, before)).raw);
    return { target, orgId: res.json.orgId as string, otpId: res.json.otpId as string, code };
  }

  it("the same code redeemed at both at once makes exactly one session", async () => {
    const { target, orgId, otpId, code } = await signUp(a, "once@example.com");
    const body = { orgId, otpId, otpCode: code, targetPublicKey: target.publicKey };
    const answers = await Promise.all([a, b].map((at) => post(at.url, "/signer/v1/otp", body, KEY)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(typeof ok[0]?.json.credentialBundle).toBe("string");
    const refused = answers.find((r) => r.status !== 200);
    expect(refused?.status).toBe(400);
    expect(refused?.json.code).toBe("OTP_ALREADY_USED");
    const sessions = await db.query(
      "SELECT count(*)::int AS n FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = $1 AND k.kind = 'session'",
      ["once@example.com"],
    );
    expect(sessions.rows[0].n).toBe(1);
  });

  it("a stamp used at one instance is refused as a replay at the other", async () => {
    const { target, orgId, otpId, code } = await signUp(b, "replay@example.com");
    const done = await post(
      a.url,
      "/signer/v1/otp",
      { orgId, otpId, otpCode: code, targetPublicKey: target.publicKey },
      KEY,
    );
    const sessionKey = await target.open(done.json.credentialBundle as string);
    const body = JSON.stringify({
      type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
      timestampMs: String(Date.now()),
      organizationId: orgId,
      parameters: { multiFactorType: "totp" },
    });
    const request = {
      stampedRequest: {
        body,
        url: "https://signer.test/public/v1/query/whoami",
        stamp: stampWithPrivateKey(body, sessionKey),
      },
      multiFactorType: "totp",
    };
    const first = await post(a.url, "/signer/v1/auth-request-multi-factor", request, KEY);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const again = await post(b.url, "/signer/v1/auth-request-multi-factor", request, KEY);
    expect({ status: again.status, code: again.json.code }).toEqual({ status: 401, code: "STAMP_REPLAYED" });
    const factors = await db.query(
      "SELECT count(*)::int AS n FROM mfa_factors f JOIN users u ON u.id = f.user_id WHERE u.email = $1",
      ["replay@example.com"],
    );
    expect(factors.rows[0].n).toBe(1);
  });

  it("a per-address limit counts the mails of both instances", async () => {
    const email = "limited@example.com";
    const target = targetKey();
    const ask = (at: Instance, path: string) =>
      post(at.url, path, { email, targetPublicKey: target.publicKey }, KEY);
    expect((await ask(a, "/signer/v1/signup")).status).toBe(200);
    expect((await ask(b, "/signer/v1/auth")).status).toBe(200);
    expect((await ask(a, "/signer/v1/auth")).status).toBe(200);
    // The fourth, at either instance, is over the limit of three.
    for (const at of [b, a]) {
      const over = await ask(at, "/signer/v1/auth");
      expect(over.status).toBe(429);
      expect(over.json.code).toBe("RATE_LIMITED");
    }
    // Mail leaves after the answer: the three allowed arrive, and no more.
    await expect
      .poll(() => smtp.mails.filter((m) => m.to === email).length, { timeout: 10_000 })
      .toBe(MAILS_PER_EMAIL);
  });

  it("a per-network limit counts the requests of both instances", async () => {
    // Both instances see the same client address (127.0.0.1): its lookups share one window.
    const lookup = (at: Instance) => post(at.url, "/signer/v1/lookup", { email: "nobody@example.com" }, KEY);
    for (const at of [a, b, a, b]) expect((await lookup(at)).status).toBe(200);
    for (const at of [b, a]) {
      const over = await lookup(at);
      expect({ status: over.status, code: over.json.code }).toEqual({ status: 429, code: "RATE_LIMITED" });
    }
  });

  it("sign-ups killed mid-flight with SIGKILL leave nothing half-written; the other instance keeps serving", async () => {
    const emails = Array.from({ length: 24 }, (_, i) => `killed-${i}@example.com`);
    const inFlight = emails.map((email) =>
      post(a.url, "/signer/v1/signup", { email, targetPublicKey: targetKey().publicKey }, KEY).catch(() => ({
        status: 0,
        json: {},
      })),
    );
    // Killed once the first sign-ups have committed, while the others derive wallets or write them.
    await expect
      .poll(
        async () =>
          (await db.query("SELECT count(*)::int AS n FROM users WHERE email LIKE 'killed-%'")).rows[0].n,
        { timeout: 20_000, interval: 5 },
      )
      .toBeGreaterThan(0);
    await stop(a.child, "SIGKILL");
    const answers = await Promise.all(inFlight);
    expect(answers.some((r) => r.status === 0)).toBe(true);

    // Every user that exists has its whole wallet: one wallet, an EVM and a Solana account.
    const users = await db.query(
      `SELECT u.email,
              (SELECT count(*)::int FROM wallets w WHERE w.user_id = u.id) AS wallets,
              (SELECT count(*)::int FROM wallet_accounts wa JOIN wallets w ON w.id = wa.wallet_id
                WHERE w.user_id = u.id) AS accounts
         FROM users u WHERE u.email LIKE 'killed-%'`,
    );
    expect(users.rows.length).toBeGreaterThan(0);
    expect(users.rows.length).toBeLessThan(emails.length);
    for (const row of users.rows) expect(row, row.email).toMatchObject({ wallets: 1, accounts: 2 });
    // Every sign-up that was answered is there.
    const stored = new Set(users.rows.map((r) => r.email));
    emails.forEach((email, i) => {
      if (answers[i]?.status === 200) expect(stored.has(email), email).toBe(true);
    });

    // The other instance serves on, including the sign-ups that never finished.
    const lost = emails.find((email) => !stored.has(email)) ?? "after-kill@example.com";
    const { target, orgId, otpId, code } = await signUp(b, lost);
    const done = await post(
      b.url,
      "/signer/v1/otp",
      { orgId, otpId, otpCode: code, targetPublicKey: target.publicKey },
      KEY,
    );
    expect(done.status).toBe(200);
  });
});
