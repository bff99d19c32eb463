/**
 * Managing the email sign-in of a signed-in user (DESIGN §3.1, §9): a code proves the new address
 * (init-otp → verify-otp → a single-use verification token), update-email-auth sets it, an empty email
 * removes email sign-in — never the last way in — and the old address is told. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { stampWithPrivateKey } from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmailUser,
  type Harness,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const UPDATE_PATH = "/public/v1/submit/update_user_email";

describe.each(["sqlite", "postgres"] as const)("email management (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind);
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  /** init-otp, then verify-otp with the mailed code: the verification token for `contact`. */
  async function verify(contact: string): Promise<string> {
    const before = h.smtp.mails.length;
    const init = await post(h.url, "/signer/v1/init-otp", { contact, otpType: "OTP_TYPE_EMAIL" }, KEY);
    expect(init.status).toBe(200);
    const mail = await h.smtp.waitFor(contact, before);
    expect(mail.raw).toContain("verification code");
    const verified = await post(
      h.url,
      "/signer/v1/verify-otp",
      { otpId: init.json.otpId, otpCode: /Subject: (\d{6}) is your /.exec(mail.raw)?.[1] },
      KEY,
    );
    expect(verified.status).toBe(200);
    return verified.json.verificationToken as string;
  }

  function update(user: EmailUser, parameters: Record<string, unknown>) {
    return post(
      h.url,
      "/signer/v1/update-email-auth",
      stamped(
        UPDATE_PATH,
        {
          type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
          timestampMs: String(Date.now()),
          organizationId: user.orgId,
          parameters: { userId: user.userId, ...parameters },
        },
        user.sessionKey,
      ),
      KEY,
    );
  }

  const lookup = async (email: string) => (await post(h.url, "/signer/v1/lookup", { email }, KEY)).json.orgId;

  it("changes the email with a code to the new address; the old one is told and no longer signs in", async () => {
    const oldEmail = unique("old");
    const user = await signUpByEmail(h, oldEmail, KEY);
    const newEmail = unique("new");
    const token = await verify(newEmail);
    const before = h.smtp.mails.length;
    const changed = await update(user, { userEmail: newEmail, verificationToken: token });
    expect(changed.json.code ?? "").toBe("");
    expect(changed.status).toBe(200);
    expect(await lookup(newEmail)).toBe(user.orgId);
    expect(await lookup(oldEmail)).toBeNull();
    const notice = await h.smtp.waitFor(oldEmail, before);
    expect(notice.raw).toContain("sign-in email was changed");
    expect(notice.raw).toContain(newEmail);
    // The session stays: the same key still reads the user.
    const me = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
      KEY,
    );
    expect(me.json.email).toBe(newEmail);
    // And the new address signs in.
    const again = await post(
      h.url,
      "/signer/v1/auth",
      { email: newEmail, targetPublicKey: targetKey().publicKey },
      KEY,
    );
    expect([again.status, again.json.orgId]).toEqual([200, user.orgId]);
  });

  it("refuses a token for another address, a spent token and one without a token", async () => {
    const user = await signUpByEmail(h, unique("owner"), KEY);
    const wanted = unique("wanted");
    const other = unique("other");
    const otherToken = await verify(other);
    const wrong = await update(user, { userEmail: wanted, verificationToken: otherToken });
    expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
    const none = await update(user, { userEmail: wanted });
    expect([none.status, none.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
    const forged = await update(user, {
      userEmail: wanted,
      verificationToken: `${otherToken.slice(0, -4)}AAAA`,
    });
    expect([forged.status, forged.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
    const token = await verify(wanted);
    expect((await update(user, { userEmail: wanted, verificationToken: token })).status).toBe(200);
    const second = await signUpByEmail(h, unique("second"), KEY);
    const reused = await update(second, { userEmail: wanted, verificationToken: token });
    expect([reused.status, reused.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
    expect(await lookup(wanted)).toBe(user.orgId);
  });

  it("refuses an address that already signs in to another account", async () => {
    const taken = unique("taken");
    await signUpByEmail(h, taken, KEY);
    const user = await signUpByEmail(h, unique("mover"), KEY);
    const token = await verify(taken);
    const refused = await update(user, { userEmail: taken, verificationToken: token });
    expect([refused.status, refused.json.code]).toEqual([409, "EMAIL_IN_USE"]);
  });

  it("never removes the last way to sign in; with a passkey beside it, removing email works", async () => {
    const email = unique("last");
    const user = await signUpByEmail(h, email, KEY);
    const refused = await update(user, { userEmail: "" });
    expect([refused.status, refused.json.code]).toEqual([409, "LAST_AUTH_METHOD"]);
    expect(await lookup(email)).toBe(user.orgId);

    // Add a passkey (create_authenticators, stamped by the session), then remove the email.
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const challenge = randomBytes(32).toString("base64url");
    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        authenticators: [{ authenticatorName: "pk", challenge, attestation: auth.attest(challenge) }],
      },
    });
    const added = await post(h.url, "/public/v1/submit/create_authenticators", text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
    expect(added.status).toBe(200);
    const before = h.smtp.mails.length;
    const removed = await update(user, { userEmail: "" });
    expect(removed.status).toBe(200);
    expect(await lookup(email)).toBeNull();
    expect((await h.smtp.waitFor(email, before)).raw).toContain("sign-in email was removed");
    // The passkey is now the last way in: it cannot be removed.
    const methods = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      {
        suborgId: user.orgId,
        ...stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
      },
      KEY,
    );
    expect(methods.json.email ?? null).toBeNull();
    expect((methods.json.passkeys as unknown[]).length).toBe(1);
  });

  it("a wrong code, an unknown id and bad input answer 4xx with a stable code", async () => {
    const contact = unique("codes");
    const init = await post(h.url, "/signer/v1/init-otp", { contact, otpType: "OTP_TYPE_EMAIL" }, KEY);
    const wrong = await post(
      h.url,
      "/signer/v1/verify-otp",
      { otpId: init.json.otpId, otpCode: "000000" },
      KEY,
    );
    // A 1-in-a-million chance the mailed code is 000000: then it verifies, which is also right.
    if (wrong.status !== 200) expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_OTP"]);
    const unknown = await post(h.url, "/signer/v1/verify-otp", { otpId: "nope", otpCode: "123456" }, KEY);
    expect([unknown.status, unknown.json.code]).toEqual([400, "INVALID_OTP"]);
    for (const body of [
      {},
      { contact: "not-an-email", otpType: "OTP_TYPE_EMAIL" },
      { contact, otpType: "OTP_TYPE_SMS" },
      { contact: "a\u0000@example.com", otpType: "OTP_TYPE_EMAIL" },
    ]) {
      const r = await post(h.url, "/signer/v1/init-otp", body, KEY);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    for (const body of [{}, { otpId: "x\u0000", otpCode: "123456" }, { otpId: "x", otpCode: "12" }]) {
      const r = await post(h.url, "/signer/v1/verify-otp", body, KEY);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    const noKey = await post(h.url, "/signer/v1/init-otp", { contact, otpType: "OTP_TYPE_EMAIL" });
    expect(noKey.status).toBe(401);
  });
});
