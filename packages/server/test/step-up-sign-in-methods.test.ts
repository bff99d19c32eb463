/**
 * W1: the wallet export's step-up is not defeated by the session it distrusts. A session that is not a
 * fresh sign-in (an email-code session older than STEP_UP_MAX_AGE_MS, or a social sign-in) cannot mint
 * its own proof: (a) enrolling an authenticator-app factor, (b) moving the email sign-in to an address
 * the attacker reads, (c) adding the attacker's passkey — and likewise linking a social sign-in or
 * removing a factor — each need the proof export needs, of the account as it was. Each attack is refused,
 * the owner's email sign-in stays theirs, and each change still works with a proper proof. SQLite and
 * PostgreSQL.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  STEP_UP_MAX_AGE_MS,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertApp } from "../src/apps/appDirectory";
import { demoteLaterSignupProofs } from "../src/db/migrations/0028_signup_session";
import { type DevOidcProvider, startDevOidcProvider } from "../src/dev/oidcProvider";
import {
  Browser,
  codeFrom,
  type Harness,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
  verificationToken as verifyContact,
} from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const CLIENT = { clientId: "latchkey-test", clientSecret: "test-secret-0123456789" };
/** People at the dev provider: one per social session below, and mallory, whose sign-in is linked. */
const SOCIAL_SUBS = Array.from({ length: 12 }, (_, i) => `person${i}`);
/** People who sign in socially twice within minutes of their social sign-up (W5). */
const TWICE_SUBS = ["twice0", "twice1", "twice2", "twice3"];
const SOCIAL_USERS = [...SOCIAL_SUBS, ...TWICE_SUBS, "mallory"].map((sub) => ({
  sub,
  email: `${sub}@social.example.com`,
  name: sub,
  emailVerified: true,
}));

/** Someone signed in: their organisation, user and session key. */
interface Session {
  orgId: string;
  userId: string;
  sessionKey: Uint8Array;
}

function frameKey() {
  return toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));
}

describe.each(["sqlite", "postgres"] as const)(
  "changing how a user signs in needs a fresh sign-in (%s)",
  (kind) => {
    let h: Harness;
    let idp: DevOidcProvider;

    beforeAll(async () => {
      h = await startHarness(kind, { rateLimits: { exportsPerUser: 50 } });
      idp = await startDevOidcProvider({
        clients: [{ ...CLIENT, redirectUris: [`${h.url}/oauth/callback`] }],
        users: SOCIAL_USERS,
      });
      await upsertApp(
        { db: h.service.ctx.db, now: Date.now(), keyring: h.service.ctx.keyring },
        {
          ...TEST_APP,
          oauthProviders: [{ id: "google", issuer: idp.issuer, ...CLIENT, allowInsecureHttp: true }],
        },
      );
      h.service.ctx.apps.invalidate();
    });
    afterAll(async () => {
      await idp?.close();
      await h?.close();
    });

    const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

    /** A social sign-in in a pop-up, as a browser makes it; `fetchIdTokenOnly` answers an ID token only. */
    async function socialPopup(sub: string, opts: { fetchIdTokenOnly?: boolean } = {}) {
      const target = targetKey();
      const prep = await post(
        h.url,
        "/signer/v1/prepare-oauth",
        { nonce: createHash("sha256").update(target.publicKey).digest("hex") },
        KEY,
      );
      const provider = (prep.json.authProviders as { id: string; authEndpoint: string }[]).find(
        (p) => p.id === "google",
      );
      const state = {
        authProviderId: "google",
        requestKey: prep.json.requestKey,
        targetPublicKey: target.publicKey,
        mode: "popup",
        openerOrigin: "http://app.test",
        ...(opts.fetchIdTokenOnly ? { fetchIdTokenOnly: true } : {}),
      };
      const auth = new URL(provider?.authEndpoint as string);
      auth.search = new URLSearchParams({
        client_id: CLIENT.clientId,
        redirect_uri: `${h.url}/oauth/callback`,
        response_type: "code",
        scope: "openid email profile",
        state: Buffer.from(JSON.stringify(state)).toString("base64url"),
        nonce: createHash("sha256").update(target.publicKey).digest("hex"),
        code_challenge: prep.json.codeChallenge as string,
        code_challenge_method: "S256",
        prompt: "select_account",
      }).toString();
      const browser = new Browser();
      const interaction = await browser.followUntilLeaving(auth.toString(), idp.issuer);
      const html = await (await browser.get(interaction)).text();
      const uid = /\/interaction\/([^/"]+)\/login/.exec(html)?.[1] as string;
      const back = await browser.followUntilLeaving(`${idp.issuer}/interaction/${uid}/login`, idp.issuer, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ sub }).toString(),
      });
      const page = await (await fetch(back, { redirect: "manual" })).text();
      const message = JSON.parse(/var m=(\{.*?\});try/.exec(page)?.[1] ?? "null") as Record<string, unknown>;
      return { target, message };
    }

    /** A social session of the pop-up's sign-in (its `sessionKey`) and the user it names. */
    async function socialSignIn(sub: string): Promise<Session & { email: string }> {
      const { target, message } = await socialPopup(sub);
      expect(message).toMatchObject({ status: "SUCCESS" });
      const sessionKey = await target.open(message.bundle as string);
      const orgId = message.orgId as string;
      const who = await post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: orgId }, sessionKey),
        KEY,
      );
      return { orgId, userId: who.json.userId as string, sessionKey, email: `${sub}@social.example.com` };
    }

    /**
     * A social sign-in to an account made by a social sign-up before the step-up window: the session is
     * new, but a social sign-in is no fresh proof (only the one that made the account counts, and only
     * within the window: see "the social sign-up that made the account" below).
     */
    async function socialSession(sub: string): Promise<Session & { email: string }> {
      const signup = await socialSignIn(sub);
      // The account was made before the window (the provider's ID tokens live in real time, so the
      // service's clock is not moved for this: the account's creation is).
      await h.service.ctx.db
        .updateTable("users")
        .set({ created_at: h.clock.now - STEP_UP_MAX_AGE_MS - 1000 })
        .where("id", "=", signup.userId)
        .execute();
      const session = await socialSignIn(sub);
      expect(session.userId).toBe(signup.userId);
      return session;
    }

    /** An email-code session older than the step-up window. */
    async function staleEmailSession(): Promise<Session & { email: string }> {
      const email = unique("owner");
      const user = await signUpByEmail(h, email, KEY);
      h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
      return { ...user, email };
    }

    let people = 0;
    const kinds: [string, () => Promise<Session & { email: string }>][] = [
      ["a social session", () => socialSession(SOCIAL_SUBS[people++] as string)],
      ["a stale email-code session", staleEmailSession],
    ];

    function submit(
      user: Session,
      path: string,
      type: string,
      parameters: Record<string, unknown>,
      stamp: { passkey?: SoftAuthenticator } = {},
    ) {
      const text = JSON.stringify({
        type,
        timestampMs: String(h.clock.now),
        organizationId: user.orgId,
        parameters,
      });
      return post(
        h.url,
        `/public/v1/submit/${path}`,
        text,
        stamp.passkey
          ? { "X-Stamp-WebAuthn": stamp.passkey.stamp(text) }
          : { "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue },
      );
    }

    function mfa(user: Session, op: "request" | "verify" | "delete", parameters: Record<string, unknown>) {
      const type = {
        request: "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
        verify: "OPERATION_TYPE_VERIFY_MULTI_FACTOR",
        delete: "OPERATION_TYPE_DELETE_MULTI_FACTORS",
      }[op];
      const path = {
        request: "auth-request-multi-factor",
        verify: "auth-verify-multi-factor",
        delete: "auth-delete-multi-factors",
      }[op];
      return post(
        h.url,
        `/signer/v1/${path}`,
        stamped(
          "/public/v1/query/whoami",
          { type, timestampMs: String(h.clock.now), organizationId: user.orgId, parameters },
          user.sessionKey,
        ),
        KEY,
      );
    }

    const verificationToken = (contact: string) => verifyContact(h, KEY, contact);

    async function walletIdOf(user: Session): Promise<string> {
      const body = JSON.stringify({ type: "QUERY_TYPE_LIST_WALLETS", organizationId: user.orgId });
      const res = await post(h.url, "/public/v1/query/list_wallets", body, {
        "X-Stamp": stampWithPrivateKey(body, user.sessionKey).stampHeaderValue,
      });
      return (res.json.wallets as { walletId: string }[])[0]?.walletId as string;
    }

    function exportWallet(
      user: Session,
      walletId: string,
      extra: Record<string, unknown> = {},
      passkey?: SoftAuthenticator,
    ) {
      return submit(
        user,
        "export_wallet",
        "ACTIVITY_TYPE_EXPORT_WALLET",
        { walletId, targetPublicKey: frameKey(), ...extra },
        passkey ? { passkey } : {},
      );
    }

    function addPasskey(user: Session, passkey: SoftAuthenticator, proof: Record<string, unknown> = {}) {
      const challenge = randomBytes(32).toString("base64url");
      return submit(user, "create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", {
        userId: user.userId,
        authenticators: [{ authenticatorName: "pk", challenge, attestation: passkey.attest(challenge) }],
        ...proof,
      });
    }

    /** What the user's sign-in methods are, as stored. */
    async function stored(userId: string) {
      const db = h.service.ctx.db;
      const user = await db
        .selectFrom("users")
        .select("email")
        .where("id", "=", userId)
        .executeTakeFirstOrThrow();
      const factors = await db.selectFrom("mfa_factors").select("id").where("user_id", "=", userId).execute();
      const passkeys = await db
        .selectFrom("authenticators")
        .select("id")
        .where("user_id", "=", userId)
        .execute();
      const exports = await db
        .selectFrom("activities")
        .select("id")
        .where("user_id", "=", userId)
        .where("type", "=", "ACTIVITY_TYPE_EXPORT_WALLET")
        .execute();
      return {
        email: user.email,
        factors: factors.length,
        passkeys: passkeys.length,
        exports: exports.length,
      };
    }

    /** The owner signs in by email code: same account, no factor asked for. */
    async function ownerSignsIn(email: string, orgId: string) {
      const t = targetKey();
      const before = h.smtp.mails.length;
      const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, KEY);
      expect([auth.status, auth.json.orgId]).toEqual([200, orgId]);
      const otp = await post(
        h.url,
        "/signer/v1/otp",
        {
          orgId,
          otpId: auth.json.otpId,
          otpCode: codeFrom((await h.smtp.waitFor(email, before)).raw),
          targetPublicKey: t.publicKey,
        },
        KEY,
      );
      expect([otp.status, otp.json.code]).toEqual([200, undefined]);
      expect(otp.json.credentialBundle).toBeTruthy();
    }

    const refusedStepUp = (res: { status: number; json: Record<string, unknown> }) =>
      expect([res.status, res.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);

    describe.each(kinds)("with %s", (_name, session) => {
      it("(a) cannot enrol an authenticator app and export with its code", async () => {
        const user = await session();
        const before = await stored(user.userId);
        const requested = await mfa(user, "request", { multiFactorType: "totp" });
        refusedStepUp(requested);
        expect(requested.json.data).toEqual({ stepUpMethods: ["email"] });
        // A code for an address the attacker reads proves nothing about this account.
        const foreign = await mfa(user, "request", {
          multiFactorType: "totp",
          verificationToken: await verificationToken(unique("attacker")),
        });
        expect([foreign.status, foreign.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
        expect(await stored(user.userId)).toEqual(before);
        refusedStepUp(await exportWallet(user, await walletIdOf(user)));
        await ownerSignsIn(user.email, user.orgId);
      });

      it("(b) cannot move the email sign-in to the attacker's address and export with its code", async () => {
        const user = await session();
        const before = await stored(user.userId);
        const attacker = unique("attacker");
        const token = await verificationToken(attacker);
        const moved = await submit(user, "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {
          userId: user.userId,
          userEmail: attacker,
          verificationToken: token,
        });
        refusedStepUp(moved);
        expect(moved.json.details).toEqual([{ stepUpMethods: ["email"] }]);
        // The new address's token is no proof of the account as it is, in either field.
        const again = await submit(user, "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {
          userId: user.userId,
          userEmail: attacker,
          verificationToken: token,
          currentEmailVerificationToken: await verificationToken(attacker),
        });
        expect([again.status, again.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
        // Through the signer route too.
        const wrapped = await post(
          h.url,
          "/signer/v1/update-email-auth",
          stamped(
            "/public/v1/submit/update_user_email",
            {
              type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
              timestampMs: String(h.clock.now),
              organizationId: user.orgId,
              parameters: { userId: user.userId, userEmail: attacker, verificationToken: token },
            },
            user.sessionKey,
          ),
          KEY,
        );
        refusedStepUp(wrapped);
        // Nor may it take the email sign-in away.
        refusedStepUp(
          await submit(user, "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {
            userId: user.userId,
            userEmail: "",
          }),
        );
        expect(await stored(user.userId)).toEqual(before);
        const exported = await exportWallet(user, await walletIdOf(user), {
          verificationToken: await verificationToken(attacker),
        });
        expect([exported.status, exported.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
        await ownerSignsIn(user.email, user.orgId);
      });

      it("(c) cannot add the attacker's passkey and export with a passkey stamp", async () => {
        const user = await session();
        const before = await stored(user.userId);
        const passkey = new SoftAuthenticator("app.test", "http://app.test");
        const added = await addPasskey(user, passkey);
        refusedStepUp(added);
        expect(added.json.details).toEqual([{ stepUpMethods: ["email"] }]);
        expect(await stored(user.userId)).toEqual(before);
        const exported = await exportWallet(user, await walletIdOf(user), {}, passkey);
        expect(exported.status).not.toBe(200);
        expect(await stored(user.userId)).toEqual(before);
        await ownerSignsIn(user.email, user.orgId);
      });

      it("cannot link a social sign-in or remove a factor without a fresh proof", async () => {
        const user = await session();
        const { target, message } = await socialPopup("mallory", { fetchIdTokenOnly: true });
        const linked = await post(
          h.url,
          "/signer/v1/add-oauth-provider",
          stamped(
            "/public/v1/submit/create_oauth_providers",
            {
              type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
              timestampMs: String(h.clock.now),
              organizationId: user.orgId,
              parameters: {
                userId: user.userId,
                oauthProviders: [
                  { providerName: "google", oidcToken: message.idToken, targetPublicKey: target.publicKey },
                ],
              },
            },
            user.sessionKey,
          ),
          KEY,
        );
        refusedStepUp(linked);
        const links = await h.service.ctx.db
          .selectFrom("user_oauth_providers")
          .select("id")
          .where("user_id", "=", user.userId)
          .execute();
        // The social session's own sign-in only.
        expect(links.length).toBe(_name === "a social session" ? 1 : 0);

        // The owner adds a factor with a proof; the stale (or social) session cannot remove it.
        const requested = await mfa(user, "request", {
          multiFactorType: "totp",
          verificationToken: await verificationToken(user.email),
        });
        expect(requested.status).toBe(200);
        const secret = new URL(requested.json.multiFactorTotpUrl as string).searchParams.get(
          "secret",
        ) as string;
        const multiFactorId = requested.json.multiFactorId as string;
        const verified = await mfa(user, "verify", {
          multiFactorId,
          multiFactorCode: await generate({ secret, epoch: Math.floor(h.clock.now / 1000) }),
        });
        expect(verified.status).toBe(200);
        refusedStepUp(await mfa(user, "delete", { multiFactorIds: [multiFactorId] }));
        expect((await stored(user.userId)).factors).toBe(1);
        // Its own next code is a proof for removing it.
        h.clock.advance(30_000);
        const removed = await mfa(user, "delete", {
          multiFactorIds: [multiFactorId],
          multiFactor: {
            multiFactorId,
            multiFactorCode: await generate({ secret, epoch: Math.floor(h.clock.now / 1000) }),
          },
        });
        expect(removed.status).toBe(200);
        expect((await stored(user.userId)).factors).toBe(0);
      });

      it("cannot remove the owner's passkey, unlink their social sign-in or mint a long-lived key without a fresh proof", async () => {
        const user = await session();
        const passkey = new SoftAuthenticator("app.test", "http://app.test");
        const added = await addPasskey(user, passkey, {
          verificationToken: await verificationToken(user.email),
        });
        expect(added.status).toBe(200);
        const [{ id: authenticatorId }] = (await h.service.ctx.db
          .selectFrom("authenticators")
          .select("id")
          .where("user_id", "=", user.userId)
          .execute()) as [{ id: string }];
        const removePasskey = (proof: Record<string, unknown> = {}) =>
          submit(user, "delete_authenticators", "ACTIVITY_TYPE_DELETE_AUTHENTICATORS", {
            userId: user.userId,
            authenticatorIds: [authenticatorId],
            ...proof,
          });
        const createKey = (proof: Record<string, unknown> = {}) =>
          submit(user, "create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {
            userId: user.userId,
            apiKeys: [{ apiKeyName: "forever", publicKey: frameKey() }],
            ...proof,
          });
        const longLived = async () =>
          (
            await h.service.ctx.db
              .selectFrom("api_keys")
              .select("id")
              .where("user_id", "=", user.userId)
              .where("kind", "=", "api")
              .execute()
          ).length;
        refusedStepUp(await removePasskey());
        refusedStepUp(await createKey());
        const links = await h.service.ctx.db
          .selectFrom("user_oauth_providers")
          .select("id")
          .where("user_id", "=", user.userId)
          .execute();
        for (const link of links) {
          refusedStepUp(
            await submit(user, "delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", {
              userId: user.userId,
              providerIds: [link.id],
            }),
          );
        }
        expect((await stored(user.userId)).passkeys).toBe(1);
        expect(await longLived()).toBe(0);
        // A code of the current email (or the owner's passkey) does it, once.
        const token = await verificationToken(user.email);
        expect((await removePasskey({ verificationToken: token })).status).toBe(200);
        expect((await stored(user.userId)).passkeys).toBe(0);
        const reused = await createKey({ verificationToken: token });
        expect([reused.status, reused.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
        expect((await createKey({ verificationToken: await verificationToken(user.email) })).status).toBe(
          200,
        );
        expect(await longLived()).toBe(1);
        expect(
          await h.service.ctx.db
            .selectFrom("user_oauth_providers")
            .select("id")
            .where("user_id", "=", user.userId)
            .execute(),
        ).toEqual(links);
      });
    });

    describe.each(kinds)("with %s and a proof of the account as it is", (_name, session) => {
      it("(a) enrols an authenticator app with the current email's code; its codes then prove a step-up", async () => {
        const user = await session();
        const requested = await mfa(user, "request", {
          multiFactorType: "totp",
          verificationToken: await verificationToken(user.email),
        });
        expect(requested.status).toBe(200);
        const secret = new URL(requested.json.multiFactorTotpUrl as string).searchParams.get(
          "secret",
        ) as string;
        const multiFactorId = requested.json.multiFactorId as string;
        const code = () => generate({ secret, epoch: Math.floor(h.clock.now / 1000) });
        // The code that verifies the new factor is no proof of a fresh sign-in: once the request's proof is
        // old, the verify needs its own, and the new factor cannot give it.
        h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
        const selfProven = await mfa(user, "verify", {
          multiFactorId,
          multiFactorCode: await code(),
          multiFactor: { multiFactorId, multiFactorCode: await code() },
        });
        expect([selfProven.status, selfProven.json.code]).toEqual([404, "MFA_FACTOR_NOT_FOUND"]);
        refusedStepUp(await mfa(user, "verify", { multiFactorId, multiFactorCode: await code() }));
        const verified = await mfa(user, "verify", {
          multiFactorId,
          multiFactorCode: await code(),
          verificationToken: await verificationToken(user.email),
        });
        expect(verified.status).toBe(200);
        h.clock.advance(30_000);
        const refused = await exportWallet(user, await walletIdOf(user));
        expect(refused.json.details).toEqual([{ stepUpMethods: ["email", "totp"] }]);
        const exported = await exportWallet(user, await walletIdOf(user), {
          multiFactor: { multiFactorId, multiFactorCode: await code() },
        });
        expect([exported.status, exported.json.code]).toEqual([200, undefined]);
        const audit = await h.service.ctx.db
          .selectFrom("audit_log")
          .select(["event", "details"])
          .where("user_id", "=", user.userId)
          .where("event", "in", ["mfa.requested", "mfa.enabled", "wallet.exported"])
          .orderBy("created_at")
          .execute();
        expect(audit.map((a) => [a.event, JSON.parse(a.details ?? "{}").stepUp])).toEqual([
          ["mfa.requested", "email"],
          ["mfa.enabled", "email"],
          ["wallet.exported", "totp"],
        ]);
      });

      it("(b) moves the email sign-in with a code of the current email, and the owner then signs in at the new one", async () => {
        const user = await session();
        const next = unique("moved");
        const moved = await submit(user, "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {
          userId: user.userId,
          userEmail: next,
          verificationToken: await verificationToken(next),
          currentEmailVerificationToken: await verificationToken(user.email),
        });
        expect([moved.status, moved.json.code]).toEqual([200, undefined]);
        expect((await stored(user.userId)).email).toBe(next);
        await ownerSignsIn(next, user.orgId);
      });

      it("(c) adds a passkey with a code of the current email; its stamp then proves a step-up", async () => {
        const user = await session();
        const passkey = new SoftAuthenticator("app.test", "http://app.test");
        const added = await addPasskey(user, passkey, {
          verificationToken: await verificationToken(user.email),
        });
        expect([added.status, added.json.code]).toEqual([200, undefined]);
        const refused = await exportWallet(user, await walletIdOf(user));
        expect(refused.json.details).toEqual([{ stepUpMethods: ["email", "passkey"] }]);
        const exported = await exportWallet(user, await walletIdOf(user), {}, passkey);
        expect([exported.status, exported.json.code]).toEqual([200, undefined]);
        const { added_with } = await h.service.ctx.db
          .selectFrom("authenticators")
          .select("added_with")
          .where("user_id", "=", user.userId)
          .executeTakeFirstOrThrow();
        expect(added_with).toBe("email");
      });
    });

    it("a passkey added with a proof stamps a factor's request and an email change (signer routes)", async () => {
      const user = await staleEmailSession();
      const passkey = new SoftAuthenticator("app.test", "http://app.test");
      const added = await addPasskey(user, passkey, {
        verificationToken: await verificationToken(user.email),
      });
      expect(added.status).toBe(200);
      const byPasskey = (path: string, url: string, body: object) => {
        const text = JSON.stringify(body);
        return post(
          h.url,
          path,
          {
            stampedRequest: {
              body: text,
              stamp: { stampHeaderName: "X-Stamp-WebAuthn", stampHeaderValue: passkey.stamp(text) },
              url: `https://signer.test${url}`,
            },
          },
          KEY,
        );
      };
      const requested = await byPasskey("/signer/v1/auth-request-multi-factor", "/public/v1/query/whoami", {
        type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
        timestampMs: String(h.clock.now),
        organizationId: user.orgId,
        parameters: { multiFactorType: "totp" },
      });
      expect([requested.status, requested.json.code]).toEqual([200, undefined]);
      const next = unique("by-passkey");
      const moved = await byPasskey("/signer/v1/update-email-auth", "/public/v1/submit/update_user_email", {
        type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
        timestampMs: String(h.clock.now),
        organizationId: user.orgId,
        parameters: {
          userId: user.userId,
          userEmail: next,
          verificationToken: await verificationToken(next),
        },
      });
      expect([moved.status, moved.json.code]).toEqual([200, undefined]);
      expect((await stored(user.userId)).email).toBe(next);
    });

    it("the social sign-up that made the account adds a passkey within the window (the offer after sign-up), not after", async () => {
      const user = await socialSignIn(SOCIAL_SUBS[11] as string);
      const passkey = new SoftAuthenticator("app.test", "http://app.test");
      expect((await addPasskey(user, passkey)).status).toBe(200);
      const row = await h.service.ctx.db
        .selectFrom("authenticators")
        .select("added_with")
        .where("user_id", "=", user.userId)
        .executeTakeFirstOrThrow();
      expect(row.added_with).toBe("signup");
      h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
      const later = new SoftAuthenticator("app.test", "http://app.test");
      refusedStepUp(await addPasskey(user, later));
      expect((await stored(user.userId)).passkeys).toBe(1);
    });

    /** The id of the session key `user` holds (its api_keys row). */
    async function apiKeyIdOf(user: Session): Promise<string> {
      const row = await h.service.ctx.db
        .selectFrom("api_keys")
        .select("id")
        .where("public_key", "=", toHex(p256PublicKeyFromPrivate(user.sessionKey, true)))
        .executeTakeFirstOrThrow();
      return row.id;
    }

    it("W5: a later social sign-in within minutes of the social sign-up is no fresh sign-in; the sign-up's session is", async () => {
      // The provider's ID tokens live in real time: the service's clock, moved ahead above, comes back to it.
      h.clock.advance(Date.now() - h.clock.now);
      const signup = await socialSignIn(TWICE_SUBS[0] as string);
      const later = await socialSignIn(TWICE_SUBS[0] as string);
      expect(later.userId).toBe(signup.userId);
      const walletId = await walletIdOf(signup);
      // The account is seconds old, but the second sign-in proves only the provider's account.
      refusedStepUp(await exportWallet(later, walletId));
      refusedStepUp(await addPasskey(later, new SoftAuthenticator("app.test", "http://app.test")));
      expect(await stored(signup.userId)).toMatchObject({ passkeys: 0, exports: 0 });
      // The passkey offer right after the sign-up still works, and so does an export from that session.
      const passkey = new SoftAuthenticator("app.test", "http://app.test");
      expect((await addPasskey(signup, passkey)).status).toBe(200);
      const exported = await exportWallet(signup, walletId);
      expect([exported.status, exported.json.code]).toEqual([200, undefined]);
      const { added_with } = await h.service.ctx.db
        .selectFrom("authenticators")
        .select("added_with")
        .where("user_id", "=", signup.userId)
        .executeTakeFirstOrThrow();
      expect(added_with).toBe("signup");
      // That passkey keeps counting after the window (it was added by the sign-up's own session).
      h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
      refusedStepUp(await exportWallet(signup, walletId));
      expect((await exportWallet(later, walletId, {}, passkey)).status).toBe(200);
    });

    it("W5: a passkey a later social session added under `signup` (before the fix) stops counting; the sign-up session's keeps", async () => {
      // The provider's ID tokens live in real time: the service's clock, moved ahead above, comes back to it.
      h.clock.advance(Date.now() - h.clock.now);
      const db = h.service.ctx.db;
      // Bob signs up, signs in again, and the second session adds a passkey with no proof: what the rule
      // recorded as `signup` before it named the sign-up's session (simulated by naming the later one).
      const bob = await socialSignIn(TWICE_SUBS[1] as string);
      const bobLater = await socialSignIn(TWICE_SUBS[1] as string);
      const own = await apiKeyIdOf(bob);
      const users = db.updateTable("users").where("id", "=", bob.userId);
      await users.set({ signup_session_id: await apiKeyIdOf(bobLater) }).execute();
      const planted = new SoftAuthenticator("app.test", "http://app.test");
      expect((await addPasskey(bobLater, planted)).status).toBe(200);
      await users.set({ signup_session_id: own }).execute();
      // Carol signs up and adds her passkey from the sign-up's session, her only social session.
      const carol = await socialSignIn(TWICE_SUBS[2] as string);
      const carols = new SoftAuthenticator("app.test", "http://app.test");
      expect((await addPasskey(carol, carols)).status).toBe(200);
      await demoteLaterSignupProofs(db);
      h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
      // Bob's planted passkey still signs in, but it is no step-up proof; Carol's is.
      const refused = await exportWallet(bobLater, await walletIdOf(bobLater), {}, planted);
      refusedStepUp(refused);
      expect(refused.json.details).toEqual([{ stepUpMethods: ["email"] }]);
      const exported = await exportWallet(carol, await walletIdOf(carol), {}, carols);
      expect([exported.status, exported.json.code]).toEqual([200, undefined]);
    });

    it("a fresh email-code session still adds a passkey, a factor and a new email without more", async () => {
      const email = unique("fresh");
      const user = await signUpByEmail(h, email, KEY);
      const passkey = new SoftAuthenticator("app.test", "http://app.test");
      expect((await addPasskey(user, passkey)).status).toBe(200);
      const requested = await mfa(user, "request", { multiFactorType: "totp" });
      expect(requested.status).toBe(200);
      const secret = new URL(requested.json.multiFactorTotpUrl as string).searchParams.get(
        "secret",
      ) as string;
      const verified = await mfa(user, "verify", {
        multiFactorId: requested.json.multiFactorId,
        multiFactorCode: await generate({ secret, epoch: Math.floor(h.clock.now / 1000) }),
      });
      expect(verified.status).toBe(200);
      const next = unique("fresh-moved");
      const moved = await submit(user, "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {
        userId: user.userId,
        userEmail: next,
        verificationToken: await verificationToken(next),
      });
      expect([moved.status, moved.json.code]).toEqual([200, undefined]);
      expect(await stored(user.userId)).toEqual({ email: next, factors: 1, passkeys: 1, exports: 0 });
    });
  },
);
