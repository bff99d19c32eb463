/**
 * The admin API (`POST /admin/v1/*`, features/admin): an app's admin keys find users (email, address, id;
 * keyset pages), see one in detail, revoke their sessions (the next signature fails at once, also on a
 * second instance of the service on the same database), disable and enable them (no sign-in, no
 * signature), list activities and approve or reject held ones, and read the security log. Another app's
 * admin, a user's session key, a stale and a replayed stamp are refused with stable codes. SQLite and
 * PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { type Hex, parseEther, parseGwei, recoverTransactionAddress, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import {
  codeFrom,
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

const ADMIN_KEY = generateP256PrivateKey();
const OTHER_ADMIN_KEY = generateP256PrivateKey();
const adminPublic = (k: Uint8Array) => toHex(p256PublicKeyFromPrivate(k, true));
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const SHOP = {
  id: "shop",
  name: "Shop",
  apiKeys: ["lk_shop_key_0123456789abcdef0"],
  allowedOrigins: ["http://shop.test"],
  signingPolicy: {
    rules: [{ id: "large", effect: "needs_approval", valueAboveWei: parseEther("1").toString() }],
    rawPayloads: "allow",
    adminKeys: [{ name: "ops", publicKey: adminPublic(ADMIN_KEY) }],
  },
} satisfies AppConfig;
const OTHER = {
  id: "other",
  name: "Other",
  apiKeys: ["lk_other_key_0123456789abcdef"],
  allowedOrigins: ["http://other.test"],
  signingPolicy: { adminKeys: [{ name: "theirs", publicKey: adminPublic(OTHER_ADMIN_KEY) }] },
} satisfies AppConfig;
const SHOP_KEY = { authorization: `Bearer ${SHOP.apiKeys[0]}` };
const OTHER_KEY = { authorization: `Bearer ${OTHER.apiKeys[0]}` };

function tx(value: bigint, nonce = 0): Hex {
  return serializeTransaction({
    type: "eip1559",
    chainId: 1,
    nonce,
    to: FRIEND,
    value,
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

type Page = { items: { userId: string; email: string | null }[]; nextCursor: string | null };

describe.each(["sqlite", "postgres"] as const)("admin API (%s)", (kind) => {
  let smtp: Smtp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let a: TestService;
  let b: TestService;
  let h: Harness;
  let admin: AdminClient;
  let other: AdminClient;
  let shopOrg: string;
  let alice: EmailUser;
  let aliceEmail: string;
  const masterKey = randomBytes(32);

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const start = () =>
    startTestService({
      db: database.url,
      masterKey,
      smtpUrl: smtp.url,
      apps: [SHOP, OTHER],
      logLevel: "silent",
    });

  beforeAll(async () => {
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    a = await start();
    b = await start();
    h = {
      service: a.service,
      url: a.url,
      smtp,
      clock: { now: Date.now(), advance: () => {} },
      close: async () => {},
    };
    shopOrg = (await a.service.ctx.apps.byId(SHOP.id))?.orgId as string;
    const otherOrg = (await a.service.ctx.apps.byId(OTHER.id))?.orgId as string;
    admin = new AdminClient(a.url, shopOrg, ADMIN_KEY);
    other = new AdminClient(a.url, otherOrg, OTHER_ADMIN_KEY);
    aliceEmail = unique("Alice");
    alice = await signUpByEmail(h, aliceEmail.toLowerCase(), SHOP_KEY);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await smtp?.close();
    await database?.drop();
  });

  /** The user signs a raw payload through instance `on` (a by default): the status and error code. */
  async function sign(user: EmailUser, on: TestService = a) {
    const r = await post(
      on.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(user.orgId, user.address, `0x${randomBytes(32).toString("hex")}`, "HASH_FUNCTION_NO_OP"),
        user.sessionKey,
      ),
      SHOP_KEY,
    );
    return { status: r.status, code: r.json.code };
  }

  /** Signs an existing user in by email code: the status and code of the last step. */
  async function signIn(email: string) {
    const t = targetKey();
    const before = smtp.mails.length;
    const auth = await post(a.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, SHOP_KEY);
    if (auth.status !== 200)
      return { status: auth.status, code: auth.json.code, mailed: smtp.mails.length > before };
    const code = codeFrom((await smtp.waitFor(email, before)).raw);
    const otp = await post(
      a.url,
      "/signer/v1/otp",
      { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      SHOP_KEY,
    );
    return {
      status: otp.status,
      code: otp.json.code,
      sessionKey: otp.status === 200 ? await t.open(otp.json.credentialBundle as string) : undefined,
    };
  }

  it("finds a user by email in any case, by EVM and Solana address and by id; not another app's", async () => {
    const byEmail = await admin.call("search_users", { email: aliceEmail.toUpperCase() });
    expect(byEmail.status).toBe(200);
    expect((byEmail.json as Page).items.map((u) => u.userId)).toEqual([alice.userId]);
    expect((byEmail.json as Page).items[0]?.email).toBe(aliceEmail.toLowerCase());
    const evm = await admin.call("search_users", { address: alice.address.toLowerCase() });
    expect((evm.json as Page).items.map((u) => u.userId)).toEqual([alice.userId]);
    const sol = await admin.call("search_users", { address: alice.solanaAddress });
    expect((sol.json as Page).items.map((u) => u.userId)).toEqual([alice.userId]);
    const byId = await admin.call("search_users", { userId: alice.userId });
    expect((byId.json as Page).items.map((u) => u.userId)).toEqual([alice.userId]);
    const none = await admin.call("search_users", { email: unique("nobody") });
    expect(none.json).toEqual({ items: [], nextCursor: null });
    // Another app's admin does not see the shop's users.
    const theirs = await other.call("search_users", { email: aliceEmail });
    expect(theirs.json).toEqual({ items: [], nextCursor: null });
    const detail = await other.call("get_user", { userId: alice.userId });
    expect([detail.status, detail.json.code]).toEqual([404, "USER_NOT_FOUND"]);
  });

  it("walks every page of the users list once, newest first", async () => {
    const more = [];
    for (let i = 0; i < 3; i++) more.push(await signUpByEmail(h, unique(`page${i}`), SHOP_KEY));
    await signUpByEmail(h, unique("elsewhere"), OTHER_KEY);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await admin.call("search_users", { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      const page = r.json as Page;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((u) => u.userId));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    const all = await a.service.ctx.db
      .selectFrom("users")
      .select("id")
      .where("app_id", "=", SHOP.id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    expect(all.length).toBe(4);
    expect(seen).toEqual(all.map((u) => u.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(more[2]?.userId);
    const bad = await admin.call("search_users", { cursor: "not a cursor" });
    expect([bad.status, bad.json.code]).toEqual([400, "INVALID_CURSOR"]);
  });

  it("shows a user's sign-in methods, wallets, live sessions and security events", async () => {
    const r = await admin.call("get_user", { userId: alice.userId });
    expect(r.status).toBe(200);
    const d = r.json as {
      user: { email: string; disabledAt: number | null };
      signInMethods: { email: string };
      wallets: { accounts: { address: string }[] }[];
      sessions: { sessionId: string; kind: string }[];
      securityEvents: { event: string }[];
    };
    expect(d.user.email).toBe(aliceEmail.toLowerCase());
    expect(d.user.disabledAt).toBeNull();
    expect(d.signInMethods.email).toBe(aliceEmail.toLowerCase());
    const addresses = d.wallets.flatMap((w) => w.accounts.map((x) => x.address));
    expect(addresses).toContain(alice.address);
    expect(addresses).toContain(alice.solanaAddress);
    expect(d.sessions.length).toBeGreaterThanOrEqual(1);
    expect(d.sessions.every((s) => s.kind === "session")).toBe(true);
    expect(d.securityEvents.length).toBeGreaterThan(0);
  });

  it("revokes one session, then all: the next signature fails at once, on both instances", async () => {
    const bobEmail = unique("bob");
    const bob = await signUpByEmail(h, bobEmail, SHOP_KEY);
    const second = await signIn(bobEmail);
    expect(second.status).toBe(200);
    const bob2 = { ...bob, sessionKey: second.sessionKey as Uint8Array };
    // Both sessions sign, on both instances (whatever either keeps warm).
    for (const on of [a, b]) {
      expect(await sign(bob, on)).toEqual({ status: 200, code: undefined });
      expect(await sign(bob2, on)).toEqual({ status: 200, code: undefined });
    }
    const sessions = (await admin.call("get_user", { userId: bob.userId })).json.sessions as {
      sessionId: string;
      createdAt: number;
    }[];
    expect(sessions.length).toBe(2);
    const newest = sessions[0]?.sessionId as string;
    const one = await admin.call("revoke_sessions", { userId: bob.userId, sessionId: newest });
    expect(one.json).toEqual({ revoked: 1 });
    // The second sign-in's key is the newest: it fails on instance b at once, the first still signs.
    expect(await sign(bob2, b)).toEqual({ status: 401, code: "INVALID_STAMP" });
    expect(await sign(bob, b)).toEqual({ status: 200, code: undefined });
    const again = await admin.call("revoke_sessions", { userId: bob.userId, sessionId: newest });
    expect([again.status, again.json.code]).toEqual([404, "SESSION_NOT_FOUND"]);
    const all = await admin.call("revoke_sessions", { userId: bob.userId });
    expect(all.json).toEqual({ revoked: 1 });
    expect(await sign(bob, b)).toEqual({ status: 401, code: "INVALID_STAMP" });
    expect(await sign(bob, a)).toEqual({ status: 401, code: "INVALID_STAMP" });
    const left = (await admin.call("get_user", { userId: bob.userId })).json.sessions as unknown[];
    expect(left).toEqual([]);
    const log = await admin.call("list_audit_events", {
      userId: bob.userId,
      event: "admin.sessions_revoked",
    });
    expect((log.json.items as unknown[]).length).toBe(2);
  });

  it("disables a user (no sign-in, no signature, USER_DISABLED) and enables them again", async () => {
    const email = unique("carol");
    const carol = await signUpByEmail(h, email, SHOP_KEY);
    expect(await sign(carol, b)).toEqual({ status: 200, code: undefined });
    const off = await admin.call("disable_user", { userId: carol.userId });
    expect(off.status).toBe(200);
    expect(typeof (off.json.user as { disabledAt: number }).disabledAt).toBe("number");
    expect(await sign(carol, b)).toEqual({ status: 403, code: "USER_DISABLED" });
    expect(await sign(carol, a)).toEqual({ status: 403, code: "USER_DISABLED" });
    // Refused before any mail is sent: a disabled user gets no code.
    const refused = await signIn(email);
    expect(refused).toEqual({ status: 403, code: "USER_DISABLED", mailed: false });
    const on = await admin.call("enable_user", { userId: carol.userId });
    expect((on.json.user as { disabledAt: number | null }).disabledAt).toBeNull();
    expect(await sign(carol, b)).toEqual({ status: 200, code: undefined });
    const back = await signIn(email);
    expect(back.status).toBe(200);
    expect(await sign({ ...carol, sessionKey: back.sessionKey as Uint8Array })).toEqual({
      status: 200,
      code: undefined,
    });
    const log = await admin.call("list_audit_events", { userId: carol.userId });
    const events = (log.json.items as { event: string }[]).map((e) => e.event);
    expect(events).toContain("admin.user_disabled");
    expect(events).toContain("admin.user_enabled");
  });

  it("lists held activities and approves one (it signs) and rejects another", async () => {
    const dave = await signUpByEmail(h, unique("dave"), SHOP_KEY);
    const submit = (unsignedTransaction: Hex) => {
      const text = JSON.stringify({
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        timestampMs: String(Date.now()),
        organizationId: dave.orgId,
        parameters: { signWith: dave.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
      });
      const stamp = stampWithPrivateKey(text, dave.sessionKey);
      return post(a.url, "/public/v1/submit/sign_transaction", text, {
        [stamp.stampHeaderName]: stamp.stampHeaderValue,
      });
    };
    const held1 = (await submit(tx(parseEther("2"), 1))).json.activity as { id: string; status: string };
    const held2 = (await submit(tx(parseEther("3"), 2))).json.activity as { id: string; status: string };
    expect([held1.status, held2.status]).toEqual([
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    ]);
    const list = await admin.call("list_activities", {
      status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      userId: dave.userId,
      activityType: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      from: Date.now() - 60_000,
    });
    expect((list.json.items as { activityId: string }[]).map((x) => x.activityId).sort()).toEqual(
      [held1.id, held2.id].sort(),
    );
    // Another app's admin cannot decide it.
    const theirs = await other.call("approve_activity", { activityId: held1.id });
    expect([theirs.status, theirs.json.code]).toEqual([404, "ACTIVITY_NOT_FOUND"]);

    const approved = await admin.call("approve_activity", { activityId: held1.id });
    expect(approved.json).toEqual({
      activityId: held1.id,
      status: "ACTIVITY_STATUS_COMPLETED",
      approvals: { approved: 1, required: 1, duplicate: false },
    });
    const row = await a.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result"])
      .where("id", "=", held1.id)
      .executeTakeFirstOrThrow();
    const signed = (JSON.parse(row.result) as { signTransactionResult: { signedTransaction: Hex } })
      .signTransactionResult.signedTransaction;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(dave.address);
    const twice = await admin.call("approve_activity", { activityId: held1.id });
    expect([twice.status, twice.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);

    const rejected = await admin.call("reject_activity", { activityId: held2.id });
    expect(rejected.json).toEqual({ activityId: held2.id, status: "ACTIVITY_STATUS_REJECTED" });
    const stillHeld = await admin.call("list_activities", {
      status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      userId: dave.userId,
    });
    expect(stillHeld.json.items).toEqual([]);
    const done = await admin.call("list_activities", { userId: dave.userId, limit: 1 });
    expect((done.json.items as unknown[]).length).toBe(1);
    expect(typeof done.json.nextCursor).toBe("string");
  });

  it("refuses another app's admin, a session key, a stale, future, replayed or misdirected stamp", async () => {
    // Another app's admin key addressing the shop's organisation.
    const foreign = new AdminClient(a.url, shopOrg, OTHER_ADMIN_KEY);
    const f = await foreign.call("search_users");
    expect([f.status, f.json.code]).toEqual([403, "FORBIDDEN"]);
    // A user's session key.
    const session = new AdminClient(a.url, shopOrg, alice.sessionKey);
    const s = await session.call("search_users");
    expect([s.status, s.json.code]).toEqual([403, "ADMIN_KEY_REQUIRED"]);
    const own = new AdminClient(a.url, alice.orgId, alice.sessionKey);
    const o = await own.call("get_user", { userId: alice.userId });
    expect([o.status, o.json.code]).toEqual([403, "ADMIN_KEY_REQUIRED"]);
    // A stale and a future stamp.
    const stale = await admin.call("search_users", {}, { timestampMs: String(Date.now() - 6 * 60_000) });
    expect([stale.status, stale.json.code]).toEqual([401, "STAMP_EXPIRED"]);
    const future = await admin.call("search_users", {}, { timestampMs: String(Date.now() + 5 * 60_000) });
    expect([future.status, future.json.code]).toEqual([401, "STAMP_IN_FUTURE"]);
    // A replayed body and stamp, on this instance and on the other.
    const text = JSON.stringify({
      type: "ADMIN_DISABLE_USER",
      organizationId: shopOrg,
      timestampMs: String(Date.now()),
      userId: alice.userId,
    });
    const stamp = stampWithPrivateKey(text, ADMIN_KEY).stampHeaderValue;
    const first = await admin.sendStamped("enable_user", text, stamp);
    expect([first.status, first.json.code]).toEqual([400, "STAMP_WRONG_OPERATION"]);
    const fresh = JSON.stringify({ ...JSON.parse(text), type: "ADMIN_GET_USER" });
    const freshStamp = stampWithPrivateKey(fresh, ADMIN_KEY).stampHeaderValue;
    expect((await admin.sendStamped("get_user", fresh, freshStamp)).status).toBe(200);
    const replay = await admin.sendStamped("get_user", fresh, freshStamp);
    expect([replay.status, replay.json.code]).toEqual([401, "STAMP_REPLAYED"]);
    const onB = await new AdminClient(b.url, shopOrg, ADMIN_KEY).sendStamped("get_user", fresh, freshStamp);
    expect([onB.status, onB.json.code]).toEqual([401, "STAMP_REPLAYED"]);
    // No stamp, a tampered body, unknown fields, a bad filter.
    const bare = await post(a.url, "/admin/v1/users/search", fresh);
    expect([bare.status, bare.json.code]).toEqual([401, "INVALID_STAMP"]);
    const tampered = await admin.sendStamped("get_user", fresh.replace(alice.userId, "x"), freshStamp);
    expect([tampered.status, tampered.json.code]).toEqual([401, "INVALID_STAMP"]);
    const extra = await admin.call("get_user", { userId: alice.userId, sql: "1=1" });
    expect([extra.status, extra.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const badLimit = await admin.call("search_users", { limit: 10_000 });
    expect([badLimit.status, badLimit.json.code]).toEqual([400, "INVALID_REQUEST"]);
    // Nothing was disabled by the misdirected stamp.
    const detail = await admin.call("get_user", { userId: alice.userId });
    expect((detail.json.user as { disabledAt: number | null }).disabledAt).toBeNull();
  });

  it("answers the key-management queries list_users, list_activities, get_policy and list_policies", async () => {
    const query = async (name: string, user: EmailUser, body: Record<string, unknown> = {}) => {
      const text = JSON.stringify({ organizationId: user.orgId, ...body });
      const stamp = stampWithPrivateKey(text, user.sessionKey);
      return post(a.url, `/public/v1/query/${name}`, text, {
        [stamp.stampHeaderName]: stamp.stampHeaderValue,
      });
    };
    const users = await query("list_users", alice, { type: "QUERY_TYPE_LIST_USERS" });
    expect(users.status).toBe(200);
    expect(
      (users.json.users as { userId: string; userEmail: string }[]).map((u) => [u.userId, u.userEmail]),
    ).toEqual([[alice.userId, aliceEmail.toLowerCase()]]);
    // Three signatures, then pages of two, newest first, without duplicates.
    for (let i = 0; i < 3; i++) expect((await sign(alice)).status).toBe(200);
    const first = await query("list_activities", alice, {
      filterByStatus: ["ACTIVITY_STATUS_COMPLETED"],
      filterByType: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"],
      paginationOptions: { limit: "2" },
    });
    expect(first.status).toBe(200);
    const page1 = first.json.activities as { id: string; organizationId: string; type: string }[];
    expect(page1.length).toBe(2);
    const second = await query("list_activities", alice, {
      filterByType: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"],
      paginationOptions: { limit: "2", before: page1[1]?.id },
    });
    const page2 = second.json.activities as { id: string }[];
    expect(page2.length).toBeGreaterThanOrEqual(1);
    const ids = [...page1, ...page2].map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      page1.every((x) => x.organizationId === alice.orgId && x.type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"),
    ).toBe(true);
    const newer = await query("list_activities", alice, { paginationOptions: { after: page1[1]?.id } });
    expect((newer.json.activities as { id: string }[]).map((x) => x.id)).toContain(page1[0]?.id);
    const policies = await query("list_policies", alice);
    expect(policies.json.policies).toEqual([
      {
        policyId: "large",
        policyName: "large",
        effect: "EFFECT_ALLOW",
        consensus: "an app admin key approves (approve_activity)",
        condition: { valueAboveWei: parseEther("1").toString() },
        notes: "",
      },
    ]);
    const one = await query("get_policy", alice, { policyId: "large" });
    expect((one.json.policy as { policyId: string }).policyId).toBe("large");
    const none = await query("get_policy", alice, { policyId: "nope" });
    expect([none.status, none.json.code]).toEqual([404, "POLICY_NOT_FOUND"]);
    // Another organisation's list is refused.
    const text = JSON.stringify({ organizationId: shopOrg, type: "QUERY_TYPE_LIST_USERS" });
    const stamp = stampWithPrivateKey(text, alice.sessionKey);
    const foreign = await post(a.url, "/public/v1/query/list_users", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    expect([foreign.status, foreign.json.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("pages the security log and answers the webhook log and spend of an app without either", async () => {
    const log = await admin.call("list_audit_events", { limit: 2 });
    expect(log.status).toBe(200);
    expect((log.json.items as unknown[]).length).toBe(2);
    const next = await admin.call("list_audit_events", { limit: 2, cursor: log.json.nextCursor });
    const ids = [...(log.json.items as { eventId: string }[]), ...(next.json.items as { eventId: string }[])];
    expect(new Set(ids.map((e) => e.eventId)).size).toBe(ids.length);
    const deliveries = await admin.call("list_webhook_deliveries");
    expect(deliveries.json).toEqual({ items: [], nextCursor: null });
    const attempts = await admin.call("list_webhook_attempts", { deliveryId: "nope" });
    expect([attempts.status, attempts.json.code]).toEqual([404, "WEBHOOK_DELIVERY_NOT_FOUND"]);
    const spend = await admin.call("sponsorship_spend");
    expect(spend.json).toEqual({ days: [] });
  });
});
