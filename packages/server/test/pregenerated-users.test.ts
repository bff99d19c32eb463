/**
 * Pregenerated users (issue 38): the app's backend, stamping with an app admin key, makes a user and their
 * wallet for an email or its own id before the person signs in (`POST /admin/v1/users/pregenerate`), and
 * gets the addresses back; asked again it answers the same user. The first sign-in with that email claims
 * the user and its wallet; a passkey sign-up naming the email, a sign-up by email, a wrong code do not.
 * SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../src/config";
import { codeFrom, type Harness, post, stamped, startHarness, targetKey } from "./helpers";
import { AdminClient } from "./helpers/adminClient";
import { SoftAuthenticator } from "./soft-authenticator";

const ADMIN_KEY = generateP256PrivateKey();
const OTHER_ADMIN_KEY = generateP256PrivateKey();
const adminPublic = (k: Uint8Array) => toHex(p256PublicKeyFromPrivate(k, true));
const SHOP = {
  id: "shop",
  name: "Shop",
  apiKeys: ["lk_shop_key_0123456789abcdef0"],
  allowedOrigins: ["http://shop.test"],
  webauthn: { rpId: "shop.test", origins: ["http://shop.test"] },
  signingPolicy: { adminKeys: [{ name: "backend", publicKey: adminPublic(ADMIN_KEY) }] },
} satisfies AppConfig;
const OTHER = {
  id: "other",
  name: "Other",
  apiKeys: ["lk_other_key_0123456789abcdef"],
  allowedOrigins: ["http://other.test"],
  signingPolicy: { adminKeys: [{ name: "theirs", publicKey: adminPublic(OTHER_ADMIN_KEY) }] },
} satisfies AppConfig;
const KEY = { authorization: `Bearer ${SHOP.apiKeys[0]}` };

type Pregenerated = {
  user: { userId: string; organizationId: string; email: string | null };
  externalId: string | null;
  created: boolean;
  claimedAt: number | null;
  walletId: string;
  address: string;
  solanaAddress: string;
};

describe.each(["sqlite", "postgres"] as const)("pregenerated users (%s)", (kind) => {
  let h: Harness;
  let admin: AdminClient;
  let otherAdmin: AdminClient;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [SHOP, OTHER] });
    const org = async (id: string) => (await h.service.ctx.apps.byId(id))?.orgId as string;
    admin = new AdminClient(h.url, await org(SHOP.id), ADMIN_KEY, () => h.clock.now);
    otherAdmin = new AdminClient(h.url, await org(OTHER.id), OTHER_ADMIN_KEY, () => h.clock.now);
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const pregenerate = async (params: Record<string, unknown>, client = admin) => {
    const res = await client.call("pregenerate_user", params);
    return { status: res.status, code: res.json.code, body: res.json as unknown as Pregenerated };
  };

  /** The email sign-in a client makes for a known address: lookup → auth → the mailed code → otp. */
  async function signIn(email: string, code?: string) {
    const t = targetKey();
    const lookup = await post(h.url, "/signer/v1/lookup", { email }, KEY);
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, KEY);
    const mailed = codeFrom((await h.smtp.waitFor(email, before)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      {
        orgId: auth.json.orgId,
        otpId: auth.json.otpId,
        otpCode: code ?? mailed,
        targetPublicKey: t.publicKey,
      },
      KEY,
    );
    if (otp.status !== 200) return { lookup: lookup.json.orgId, status: otp.status, code: otp.json.code };
    const sessionKey = await t.open(otp.json.credentialBundle as string);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: auth.json.orgId }, sessionKey),
      KEY,
    );
    return {
      lookup: lookup.json.orgId,
      status: otp.status,
      who: who.json as { userId: string; address: string },
    };
  }

  it("makes a user and wallet for an email, answers the same one again, and the first sign-in claims it", async () => {
    const email = unique("airdrop");
    const made = await pregenerate({ email: email.toUpperCase() });
    expect([made.status, made.code]).toEqual([200, undefined]);
    expect(made.body).toMatchObject({ created: true, claimedAt: null, externalId: null, user: { email } });
    expect(made.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(made.body.solanaAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const again = await pregenerate({ email });
    expect(again.body).toMatchObject({ ...made.body, created: false });
    // No mail went to the person: nothing happened on their side yet.
    expect(h.smtp.mails.filter((m) => m.to === email)).toEqual([]);

    // A wrong code claims nothing.
    const wrong = await signIn(email, "000000");
    expect([wrong.status, wrong.code]).toEqual([400, "INVALID_OTP"]);
    expect((await pregenerate({ email })).body.claimedAt).toBeNull();

    const first = await signIn(email);
    expect(first.lookup).toBe(made.body.user.organizationId);
    expect(first.who).toMatchObject({ userId: made.body.user.userId, address: made.body.address });
    const claimed = (await pregenerate({ email })).body;
    expect(claimed.claimedAt).toBeGreaterThan(0);
    // A later sign-in does not move the claim.
    await signIn(email);
    expect((await pregenerate({ email })).body.claimedAt).toBe(claimed.claimedAt);
    // The security log has the making and the one claim, by the email code.
    const events = await h.service.ctx.db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("user_id", "=", made.body.user.userId)
      .where("event", "in", ["user.pregenerated", "user.claimed"])
      .orderBy("created_at")
      .execute();
    expect(events.map((e) => [e.event, JSON.parse(e.details ?? "{}").method])).toEqual([
      ["user.pregenerated", undefined],
      ["user.claimed", "email_code"],
    ]);
  });

  it("nobody else takes it: a sign-up by that email, or a passkey sign-up naming it, makes no claim", async () => {
    const email = unique("guarded");
    const made = (await pregenerate({ email })).body;
    const t = targetKey();
    const signup = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, KEY);
    expect([signup.status, signup.json.code]).toEqual([409, "USER_EXISTS"]);
    const auth = new SoftAuthenticator("shop.test", "http://shop.test");
    const challenge = randomBytes(32).toString("base64url");
    const passkey = await post(
      h.url,
      "/signer/v1/signup",
      { passkey: { challenge, attestation: auth.attest(challenge) }, email, targetPublicKey: t.publicKey },
      KEY,
    );
    expect(passkey.status).toBe(200);
    expect(passkey.json.orgId).not.toBe(made.user.organizationId);
    expect(passkey.json.address).not.toBe(made.address);
    const after = (await pregenerate({ email })).body;
    expect(after).toMatchObject({ created: false, claimedAt: null, address: made.address });
    // The email still finds the pregenerated user, whose sign-in claims it.
    expect((await signIn(email)).who?.userId).toBe(made.user.userId);
  });

  it("an externalId first, the email later: one user, and the email's first sign-in claims it", async () => {
    const externalId = `crm-${kind}-${randomBytes(4).toString("hex")}`;
    const byId = await pregenerate({ externalId });
    expect(byId.body).toMatchObject({ created: true, externalId, user: { email: null } });
    expect((await pregenerate({ externalId })).body).toMatchObject({
      created: false,
      address: byId.body.address,
    });
    const email = unique("later");
    const both = await pregenerate({ externalId, email });
    expect(both.body).toMatchObject({ created: false, user: { userId: byId.body.user.userId, email } });
    expect((await signIn(email)).who?.userId).toBe(byId.body.user.userId);
    expect((await pregenerate({ email })).body).toMatchObject({ externalId, claimedAt: expect.any(Number) });
  });

  it("refuses conflicts and bad input with stable codes; another app's admin sees its own users only", async () => {
    const a = (await pregenerate({ email: unique("a"), externalId: `a-${randomBytes(3).toString("hex")}` }))
      .body;
    const b = (await pregenerate({ email: unique("b") })).body;
    const conflict = await pregenerate({ email: b.user.email, externalId: a.externalId });
    expect([conflict.status, conflict.code]).toEqual([409, "EXTERNAL_ID_IN_USE"]);
    const otherId = await pregenerate({ email: a.user.email, externalId: "another-id" });
    expect([otherId.status, otherId.code]).toEqual([409, "EXTERNAL_ID_IN_USE"]);
    const emailTaken = await pregenerate({ externalId: `c-${randomBytes(3).toString("hex")}` });
    const attach = await pregenerate({ externalId: emailTaken.body.externalId, email: b.user.email });
    expect([attach.status, attach.code]).toEqual([409, "EXTERNAL_ID_IN_USE"]);
    for (const params of [
      {},
      { email: "not-an-email" },
      { externalId: "has space" },
      { email: unique("x"), extra: 1 },
    ]) {
      const bad = await pregenerate(params);
      expect([bad.status, bad.code], JSON.stringify(params)).toEqual([400, "INVALID_REQUEST"]);
    }
    // A user's session key is no admin key.
    const user = await post(h.url, "/admin/v1/users/pregenerate", "{}", {
      "X-Stamp": stampWithPrivateKey("{}", generateP256PrivateKey()).stampHeaderValue,
    });
    expect([user.status, user.json.code]).toEqual([403, "ADMIN_KEY_REQUIRED"]);
    // The same email in another app is another user there.
    const elsewhere = await pregenerate({ email: a.user.email }, otherAdmin);
    expect(elsewhere.body.created).toBe(true);
    expect(elsewhere.body.user.userId).not.toBe(a.user.userId);
  });

  it("is in /openapi.json, stamped by an admin key", async () => {
    const spec = (await fetch(`${h.url}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, { post?: { security?: unknown } }>;
    };
    expect(spec.paths["/admin/v1/users/pregenerate"]?.post).toBeDefined();
    expect(JSON.stringify(spec.paths["/admin/v1/users/pregenerate"]?.post?.security)).toContain(
      "adminKeyStamp",
    );
  });
});
