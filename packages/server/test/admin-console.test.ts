/**
 * The admin console's sign-in (features/admin/console): `latchkey admin create` prints a one-time
 * enrolment link; the link enrols a passkey (a real attestation from a software authenticator); the
 * passkey signs in, registering a P-256 key as a short-lived admin session that stamps the admin API as an
 * admin key does, scoped to its app. Refused with stable codes: an unknown, used or expired link; another
 * app's admin; a user's session key; stale and replayed stamps; an expired, signed-out or removed admin's
 * session. Also the console's own endpoints (daily stats, the app's configuration) and its page. SQLite
 * and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  ADMIN_CONSOLE_SIGN_IN,
  adminConsoleRoutes,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import { consoleLines } from "../src/cli/admin";
import { main } from "../src/cli/index";
import type { AppConfig } from "../src/config";
import { createEnrolmentLink, removeConsoleAdmin } from "../src/features/admin/console/consoleAdmins";
import { sweepExpired } from "../src/limits/sweeper";
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
  targetKey,
} from "./helpers";
import { AdminClient } from "./helpers/adminClient";
import { SoftAuthenticator } from "./soft-authenticator";

const PUBLIC_URL = "https://auth.shop.test";
const RP_ID = "auth.shop.test";
const SHOP = {
  id: "shop",
  name: "Shop",
  apiKeys: ["lk_shop_key_0123456789abcdef0"],
  allowedOrigins: ["http://shop.test"],
  oauthProviders: [
    {
      id: "acme",
      issuer: "https://id.acme.test",
      clientId: "shop-client",
      clientSecret: "s3cr3t-never-shown",
    },
  ],
} satisfies AppConfig;
const OTHER = {
  id: "other",
  name: "Other",
  apiKeys: ["lk_other_key_0123456789abcdef"],
  allowedOrigins: ["http://other.test"],
} satisfies AppConfig;
/** An app whose policy holds every signature and has no admin key: its console admins approve. */
const HELD = {
  id: "held",
  name: "Held",
  apiKeys: ["lk_held_key_0123456789abcdef0"],
  allowedOrigins: ["http://held.test"],
  signingPolicy: { rules: [{ id: "all", effect: "needs_approval" }] },
} satisfies AppConfig;
const SHOP_KEY = { authorization: `Bearer ${SHOP.apiKeys[0]}` };
const TWO_ADMIN_KEY = generateP256PrivateKey();
/** An app whose held signatures need two distinct admins: an admin key and its console admins. */
const TWO = {
  id: "two",
  name: "Two",
  apiKeys: ["lk_two_key_0123456789abcdef012"],
  allowedOrigins: ["http://two.test"],
  signingPolicy: {
    rules: [{ id: "all", effect: "needs_approval" }],
    adminKeys: [{ name: "ops-key", publicKey: toHex(p256PublicKeyFromPrivate(TWO_ADMIN_KEY, true)) }],
    approvals: { required: 2 },
  },
} satisfies AppConfig;

/** A console sign-in as the browser makes it: a new session key, its body stamped by the passkey. */
function signInBody(publicKey: string, ts: number, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ type: ADMIN_CONSOLE_SIGN_IN, timestampMs: String(ts), publicKey, ...extra });
}

describe.each(["sqlite", "postgres"] as const)("admin console sign-in (%s)", (kind) => {
  let smtp: Smtp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  let h: Harness;
  let shopOrg: string;
  let otherOrg: string;
  let alice: EmailUser;
  // Real time, moved forward by `clock.ahead` (expiry without waiting).
  const clock = { ahead: 0 };
  const now = () => Date.now() + clock.ahead;

  /** Runs `latchkey <args>` in-process on this database; its exit code and what it printed. */
  async function cli(args: string[]) {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      const code = await main([...args, "--db", database.url]).catch((e: Error) => e.message);
      return { code, out: out.join("") };
    } finally {
      spy.mockRestore();
    }
  }

  /** `latchkey admin create`: the enrolment link's token (from the printed link). */
  async function newLink(app: string, name: string) {
    const r = await cli(["admin", "create", "--app", app, "--name", name, "--url", PUBLIC_URL]);
    expect(r.code).toBe(0);
    const token = new RegExp(`${PUBLIC_URL}/admin/enrol#([A-Za-z0-9_-]{43})`).exec(r.out)?.[1];
    if (!token) throw new Error(`no link in ${r.out}`);
    return token;
  }

  /** Enrols a new software passkey with `token`; the authenticator and the answer. */
  async function enrol(token: string, origin = PUBLIC_URL) {
    const passkey = new SoftAuthenticator(RP_ID, origin);
    const options = await post(svc.url, adminConsoleRoutes.enrolment, { token });
    const challenge = (options.json.challenge as string | undefined) ?? "AAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const r = await post(svc.url, adminConsoleRoutes.enrol, {
      token,
      attestation: passkey.attest(challenge),
    });
    return { passkey, options, r };
  }

  /** Signs in with `passkey`: the session's private key (to stamp with) and the answer. */
  async function signIn(passkey: SoftAuthenticator, body?: (publicKey: string) => string) {
    const privateKey = generateP256PrivateKey();
    const publicKey = toHex(p256PublicKeyFromPrivate(privateKey, true));
    const text = body ? body(publicKey) : signInBody(publicKey, now());
    const r = await post(svc.url, adminConsoleRoutes.sign_in, text, {
      "X-Stamp-WebAuthn": passkey.stamp(text),
    });
    return { privateKey, publicKey, text, r };
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      smtpUrl: smtp.url,
      apps: [SHOP, OTHER, HELD, TWO],
      publicUrl: PUBLIC_URL,
      now,
      logLevel: "silent",
    });
    h = {
      service: svc.service,
      url: svc.url,
      smtp,
      clock: { now: now(), advance: () => {} },
      close: async () => {},
    };
    shopOrg = (await svc.service.ctx.apps.byId(SHOP.id))?.orgId as string;
    otherOrg = (await svc.service.ctx.apps.byId(OTHER.id))?.orgId as string;
    alice = await signUpByEmail(h, `alice-${kind}-${randomBytes(3).toString("hex")}@example.com`, SHOP_KEY);
  });
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
    await database?.drop();
  });

  it("serves the console's page under a strict CSP, its assets by content, and no page for the API", async () => {
    const page = await fetch(`${svc.url}/admin/users/x`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe");
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style|style=/);
    const script = /<script defer src="(\/admin\/assets\/console-[0-9a-f]{16}\.js)"><\/script>/.exec(
      html,
    )?.[1];
    const sheet = /<link rel="stylesheet" href="(\/admin\/assets\/console-[0-9a-f]{16}\.css)">/.exec(
      html,
    )?.[1];
    const js = await fetch(`${svc.url}${script}`);
    expect([js.status, js.headers.get("content-type"), js.headers.get("cache-control")]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "public, max-age=31536000, immutable",
    ]);
    expect((await fetch(`${svc.url}${sheet}`)).status).toBe(200);
    expect((await fetch(`${svc.url}/admin/assets/console-0000000000000000.js`)).status).toBe(404);
    expect((await fetch(`${svc.url}/admin/v1/users/search`)).status).toBe(404);
  });

  it("enrols a passkey from a one-time link, and refuses an unknown, used or expired link", async () => {
    const token = await newLink(SHOP.id, "ada");
    const { passkey, options, r } = await enrol(token);
    expect(options.json).toMatchObject({ adminName: "ada", appId: "shop", appName: "Shop", rpId: RP_ID });
    expect([r.status, r.json.name, r.json.appId]).toEqual([200, "ada", "shop"]);
    // The link is single use; only its hash is stored.
    const again = await enrol(token);
    expect([again.options.status, again.options.json.code]).toEqual([400, "ENROLMENT_LINK_USED"]);
    expect([again.r.status, again.r.json.code]).toEqual([400, "ENROLMENT_LINK_USED"]);
    const stored = await svc.service.ctx.db.selectFrom("console_enrolments").select("token_hash").execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(token);
    const unknown = await enrol(randomBytes(32).toString("base64url"));
    expect([unknown.r.status, unknown.r.json.code]).toEqual([400, "ENROLMENT_LINK_UNKNOWN"]);
    const old = await createEnrolmentLink(
      { db: svc.service.ctx.db, now: now() - 16 * 60_000 },
      { appId: SHOP.id, name: "ada" },
    );
    const expired = await enrol(old.token);
    expect([expired.r.status, expired.r.json.code]).toEqual([400, "ENROLMENT_LINK_EXPIRED"]);
    // A passkey made for another origin, or over another challenge, is no enrolment (the link stays good).
    const fresh = await newLink(SHOP.id, "ada");
    const phished = await enrol(fresh, "https://auth.shop.evil");
    expect([phished.r.status, phished.r.json.code]).toEqual([400, "PASSKEY_VERIFICATION_FAILED"]);
    const wrong = new SoftAuthenticator(RP_ID, PUBLIC_URL);
    const r2 = await post(svc.url, adminConsoleRoutes.enrol, {
      token: fresh,
      attestation: wrong.attest(Buffer.from("another challenge, not the link's").toString("base64url")),
    });
    expect([r2.status, r2.json.code]).toEqual([400, "PASSKEY_VERIFICATION_FAILED"]);
    expect((await enrol(fresh)).r.status).toBe(200);
    // What `serve` prints: the console's URL, a warning for an app whose held signatures nobody can
    // approve yet (until an admin of it has a passkey), and in dev mode a link for the dev app's admin "dev".
    const app = await svc.service.ctx.apps.byId(SHOP.id);
    if (!app) throw new Error("no shop");
    const warning =
      "Warning: app held holds signatures for approval, but has no admin key and no console admin to approve them (held signatures wait until one does): latchkey admin create --app held --name <you>";
    expect(await consoleLines({ ctx: svc.service.ctx }, "http://127.0.0.1:1")).toEqual([
      `Admin console:   ${PUBLIC_URL}/admin`,
      warning,
    ]);
    const heldLink = await newLink(HELD.id, "hal");
    expect(await consoleLines({ ctx: svc.service.ctx }, "http://x")).toContain(warning);
    expect((await enrol(heldLink)).r.status).toBe(200);
    expect(await consoleLines({ ctx: svc.service.ctx }, "http://127.0.0.1:1")).toEqual([
      `Admin console:   ${PUBLIC_URL}/admin`,
    ]);
    const [, devLine] = await consoleLines({ ctx: svc.service.ctx, devApp: { app, apiKey: "" } }, "http://x");
    const devToken = new RegExp(`^Dev admin enrolment: ${PUBLIC_URL}/admin/enrol#([\\w-]{43}) `).exec(
      devLine ?? "",
    )?.[1];
    expect((await enrol(devToken as string)).r.json.name).toBe("dev");
    // The CLI refuses an app that does not exist.
    expect((await cli(["admin", "create", "--app", "nope", "--name", "x"])).code).toMatch(/No app nope/);
    // Signing in works with the first passkey.
    expect((await signIn(passkey)).r.status).toBe(200);
  });

  it("signs in with the passkey: the session key stamps the admin API of its own app only", async () => {
    const { passkey } = await enrol(await newLink(SHOP.id, "grace"));
    const signedAt = now();
    const { privateKey, r } = await signIn(passkey);
    expect(r.status).toBe(200);
    expect(r.json.admin).toMatchObject({
      name: "grace",
      appId: "shop",
      appName: "Shop",
      organizationId: shopOrg,
    });
    expect(r.json.expiresAt).toBeGreaterThanOrEqual(signedAt + 3600_000);
    expect(r.json.expiresAt).toBeLessThanOrEqual(now() + 3600_000);
    const grace = new AdminClient(svc.url, shopOrg, privateKey, now);
    const found = await grace.call("search_users", { email: (await userEmail(alice.userId)) as string });
    expect([found.status, (found.json.items as { userId: string }[]).map((u) => u.userId)]).toEqual([
      200,
      [alice.userId],
    ]);
    const app = await grace.call("get_app");
    expect(app.json.admin).toEqual({ name: "grace", via: "console" });
    expect(JSON.stringify(app.json)).not.toMatch(/s3cr3t|lk_shop_key/);
    expect((app.json.app as { oauthProviders: unknown[] }).oauthProviders).toEqual([
      expect.objectContaining({ id: "acme", clientId: "shop-client", hasClientSecret: true }),
    ]);
    // Addressed to another app's organisation: refused, as for an admin key.
    const elsewhere = new AdminClient(svc.url, otherOrg, privateKey, now);
    const forbidden = await elsewhere.call("search_users");
    expect([forbidden.status, forbidden.json.code]).toEqual([403, "FORBIDDEN"]);
    // Another app's admin signs in to their own app and does not see the shop's user.
    const theirs = await enrol(await newLink(OTHER.id, "otto"));
    const otto = await signIn(theirs.passkey);
    expect(otto.r.json.admin).toMatchObject({ appId: "other", organizationId: otherOrg });
    const ottoClient = new AdminClient(svc.url, otherOrg, otto.privateKey, now);
    const notTheirs = await ottoClient.call("get_user", { userId: alice.userId });
    expect([notTheirs.status, notTheirs.json.code]).toEqual([404, "USER_NOT_FOUND"]);
    const none = await ottoClient.call("revoke_sessions", { userId: alice.userId });
    expect([none.status, none.json.code]).toEqual([404, "USER_NOT_FOUND"]);
  });

  it("refuses a user's session key, a stale or replayed stamp, and a passkey that is no admin's", async () => {
    const { passkey } = await enrol(await newLink(SHOP.id, "hopper"));
    const { privateKey } = await signIn(passkey);
    const admin = new AdminClient(svc.url, shopOrg, privateKey, now);
    // A user's session key is no admin.
    const asUser = new AdminClient(svc.url, shopOrg, alice.sessionKey, now);
    const user = await asUser.call("search_users");
    expect([user.status, user.json.code]).toEqual([403, "ADMIN_KEY_REQUIRED"]);
    // Stale, future and replayed admin API bodies.
    const stale = await admin.call("search_users", {}, { timestampMs: String(now() - 6 * 60_000) });
    expect([stale.status, stale.json.code]).toEqual([401, "STAMP_EXPIRED"]);
    const future = await admin.call("search_users", {}, { timestampMs: String(now() + 2 * 60_000) });
    expect([future.status, future.json.code]).toEqual([401, "STAMP_IN_FUTURE"]);
    const body = JSON.stringify({
      type: "ADMIN_SEARCH_USERS",
      organizationId: shopOrg,
      timestampMs: String(now()),
    });
    expect((await admin.send("search_users", body)).status).toBe(200);
    const replayed = await admin.send("search_users", body);
    expect([replayed.status, replayed.json.code]).toEqual([401, "STAMP_REPLAYED"]);
    // Sign-in bodies: stale, replayed (the passkey's counter, then the ledger), malformed, a stranger's passkey.
    const staleSignIn = await signIn(passkey, (pk) => signInBody(pk, now() - 6 * 60_000));
    expect([staleSignIn.r.status, staleSignIn.r.json.code]).toEqual([401, "STAMP_EXPIRED"]);
    const ok = await signIn(passkey);
    const replay = await post(svc.url, adminConsoleRoutes.sign_in, ok.text, {
      "X-Stamp-WebAuthn": passkey.stamp(ok.text),
    });
    expect([replay.status, replay.json.code]).toEqual([401, "STAMP_REPLAYED"]);
    const longer = await signIn(passkey, (pk) => signInBody(pk, now(), { expirationSeconds: 13 * 3600 }));
    expect([longer.r.status, longer.r.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const stranger = await signIn(new SoftAuthenticator(RP_ID, PUBLIC_URL));
    expect([stranger.r.status, stranger.r.json.code]).toEqual([401, "INVALID_STAMP"]);
    const noStamp = await post(svc.url, adminConsoleRoutes.sign_in, signInBody(ok.publicKey, now()));
    expect([noStamp.status, noStamp.json.code]).toEqual([401, "INVALID_STAMP"]);
    // The session key's stamp on the signer API does nothing either: it is no user's key.
    const sign = await post(
      svc.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(alice.orgId, alice.address, `0x${"11".repeat(32)}`, "HASH_FUNCTION_NO_OP", now()),
        privateKey,
      ),
      SHOP_KEY,
    );
    expect(sign.status).toBe(401);
  });

  it("ends a session when it expires, when the admin signs out, and when the admin is removed", async () => {
    const { passkey } = await enrol(await newLink(SHOP.id, "lovelace"));
    const first = await signIn(passkey, (pk) => signInBody(pk, now(), { expirationSeconds: 120 }));
    const short = new AdminClient(svc.url, shopOrg, first.privateKey, now);
    const firstCall = await short.call("search_users");
    expect([firstCall.status, firstCall.json]).toEqual([200, expect.anything()]);
    clock.ahead += 121_000;
    const expired = await short.call("search_users");
    expect([expired.status, expired.json.code]).toEqual([401, "SESSION_EXPIRED"]);

    const second = await signIn(passkey);
    const session = new AdminClient(svc.url, shopOrg, second.privateKey, now);
    expect((await session.call("sign_out")).json).toEqual({ signedOut: true });
    const out = await session.call("search_users");
    expect([out.status, out.json.code]).toEqual([401, "SESSION_EXPIRED"]);

    const third = await signIn(passkey);
    const kept = new AdminClient(svc.url, shopOrg, third.privateKey, now);
    expect((await kept.call("search_users")).status).toBe(200);
    const removed = await cli(["admin", "remove", "--app", SHOP.id, "--name", "lovelace"]);
    expect([removed.code, removed.out]).toEqual([0, "Removed admin lovelace of app shop\n"]);
    const gone = await kept.call("search_users");
    expect([gone.status, gone.json.code]).toEqual([401, "SESSION_EXPIRED"]);
    const noPasskey = await signIn(passkey);
    expect([noPasskey.r.status, noPasskey.r.json.code]).toEqual([401, "INVALID_STAMP"]);
    expect(
      await removeConsoleAdmin({ db: svc.service.ctx.db, now: now() }, { appId: SHOP.id, name: "lovelace" }),
    ).toBe(false);
    const events = await svc.service.ctx.db
      .selectFrom("audit_log")
      .select("event")
      .where("app_id", "=", SHOP.id)
      .where("event", "like", "admin.console_%")
      .execute();
    expect(new Set(events.map((e) => e.event))).toEqual(
      new Set(["admin.console_enrolled", "admin.console_signed_in", "admin.console_signed_out"]),
    );
  });

  it("answers the overview's daily counts from the app's own rows", async () => {
    const { passkey } = await enrol(await newLink(SHOP.id, "curie"));
    const admin = new AdminClient(svc.url, shopOrg, (await signIn(passkey)).privateKey, now);
    const today = new Date(now()).toISOString().slice(0, 10);
    const before = await admin.call("daily_stats", { fromDay: today, toDay: today });
    expect(before.status).toBe(200);
    // A wrong code (a failed sign-in), a new user, and a signature.
    const t = targetKey();
    const email = (await userEmail(alice.userId)) as string;
    const auth = await post(svc.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, SHOP_KEY);
    const wrong = await post(
      svc.url,
      "/signer/v1/otp",
      { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: "000000", targetPublicKey: t.publicKey },
      SHOP_KEY,
    );
    expect(wrong.status).toBe(400);
    await signUpByEmail(h, `bob-${kind}-${randomBytes(3).toString("hex")}@example.com`, SHOP_KEY);
    const signed = await post(
      svc.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(alice.orgId, alice.address, `0x${"22".repeat(32)}`, "HASH_FUNCTION_NO_OP", now()),
        alice.sessionKey,
      ),
      SHOP_KEY,
    );
    expect(signed.status).toBe(200);
    const after = await admin.call("daily_stats", { fromDay: today, toDay: today });
    const [b, a] = [before, after].map(
      (r) => (r.json.days as Record<string, number>[])[0] as Record<string, number>,
    );
    expect({
      signUps: (a?.signUps ?? 0) - (b?.signUps ?? 0),
      signatures: (a?.signatures ?? 0) - (b?.signatures ?? 0),
      failedSignIns: (a?.failedSignIns ?? 0) - (b?.failedSignIns ?? 0),
    }).toEqual({ signUps: 1, signatures: 1, failedSignIns: 1 });
    // Alice (signed) and Bob (signed up) are active today, whatever else happened.
    expect(a?.activeUsers).toBeGreaterThanOrEqual(2);
    // Thirty days by default, every day listed; more than a year is refused.
    const month = await admin.call("daily_stats");
    expect((month.json.days as unknown[]).length).toBe(30);
    const tooLong = await admin.call("daily_stats", { fromDay: "2020-01-01", toDay: today });
    expect([tooLong.status, tooLong.json.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("counts a console admin and an admin key as two approvals, a console admin's two sessions as one", async () => {
    const twoOrg = (await svc.service.ctx.apps.byId(TWO.id))?.orgId as string;
    const user = await signUpByEmail(h, `two-${kind}-${randomBytes(3).toString("hex")}@example.com`, {
      authorization: `Bearer ${TWO.apiKeys[0]}`,
    });
    const body = JSON.stringify(
      signBody(user.orgId, user.address, `0x${"33".repeat(32)}`, "HASH_FUNCTION_NO_OP", now()),
    );
    const stamp = stampWithPrivateKey(body, user.sessionKey);
    const held = await post(svc.url, "/public/v1/submit/sign_raw_payload", body, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    const activity = held.json.activity as { id: string; status: string };
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const activityId = activity.id;

    const { passkey } = await enrol(await newLink(TWO.id, "hopper"));
    const first = new AdminClient(svc.url, twoOrg, (await signIn(passkey)).privateKey, now);
    const second = new AdminClient(svc.url, twoOrg, (await signIn(passkey)).privateKey, now);
    const held1 = "ACTIVITY_STATUS_CONSENSUS_NEEDED";
    expect((await first.call("approve_activity", { activityId })).json).toEqual({
      activityId,
      status: held1,
      approvals: { approved: 1, required: 2, duplicate: false },
    });
    // The same admin from another session: counted once.
    expect((await second.call("approve_activity", { activityId })).json).toEqual({
      activityId,
      status: held1,
      approvals: { approved: 1, required: 2, duplicate: true },
    });
    const listed = await first.call("list_activities", { userId: user.userId, status: held1, locale: "fr" });
    expect((listed.json.items as Record<string, unknown>[])[0]).toMatchObject({
      activityId,
      approvals: { required: 2, approvedBy: [{ admin: "hopper" }] },
      preview: {
        kind: "raw",
        summary: { title: "Signature brute" },
        simulation: { status: "unavailable", reason: "notApplicable" },
        policy: { effect: "needs_approval", ruleId: "rawPayloads" },
      },
    });
    // The admin key is another admin: the second approval signs it.
    const key = new AdminClient(svc.url, twoOrg, TWO_ADMIN_KEY, now);
    expect((await key.call("approve_activity", { activityId })).json).toEqual({
      activityId,
      status: "ACTIVITY_STATUS_COMPLETED",
      approvals: { approved: 2, required: 2, duplicate: false },
    });
  });

  it("lets the retention sweeper delete links and sessions long expired, and nothing live", async () => {
    const db = svc.service.ctx.db;
    const { passkey } = await enrol(await newLink(SHOP.id, "franklin"));
    const live = await signIn(passkey);
    expect(live.r.status).toBe(200);
    const pending = await newLink(SHOP.id, "franklin");
    const count = async () => ({
      links: (await db.selectFrom("console_enrolments").select("token_hash").execute()).length,
      sessions: (await db.selectFrom("console_sessions").select("id").execute()).length,
    });
    const before = await count();
    // Eight days on: every session (an hour at most) is a week past its expiry; links are a day past.
    const report = await sweepExpired(db, now() + 8 * 86_400_000, 60);
    expect(report.console_sessions).toBe(before.sessions);
    expect(report.console_enrolments).toBe(before.links);
    expect(await count()).toEqual({ links: 0, sessions: 0 });
    // Now: nothing the sweep deletes is still live.
    const fresh = await signIn(passkey);
    const link = await newLink(SHOP.id, "franklin");
    expect(await sweepExpired(db, now(), 60)).toMatchObject({ console_sessions: 0, console_enrolments: 0 });
    expect((await post(svc.url, adminConsoleRoutes.enrolment, { token: link })).status).toBe(200);
    expect((await new AdminClient(svc.url, shopOrg, fresh.privateKey, now).call("get_app")).status).toBe(200);
    expect(pending).not.toBe(link);
  });

  async function userEmail(userId: string) {
    const u = await svc.service.ctx.db
      .selectFrom("users")
      .select("email")
      .where("id", "=", userId)
      .executeTakeFirst();
    return u?.email;
  }
});
