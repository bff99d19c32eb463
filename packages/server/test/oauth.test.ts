import { createHash } from "node:crypto";
import { stampWithPrivateKey } from "@latchkey/protocol";
import { getAddress, recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertApp } from "../src/apps/appDirectory";
import { DEV_OIDC_USERS, type DevOidcProvider, startDevOidcProvider } from "../src/dev/oidcProvider";
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
} from "./helpers";
import { makeSplitWallet, SPLIT, SPLIT_APP, signRawBody } from "./helpers/splitKeyHolder";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const CLIENT = { clientId: "latchkey-test", clientSecret: "test-secret-0123456789" };
const OTHER = { clientId: "someone-else", clientSecret: "other-secret-0123456789" };

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

describe.each(["sqlite", "postgres"] as const)("social sign-in with OpenID Connect (%s)", (kind) => {
  let h: Harness;
  let idp: DevOidcProvider;
  let auth0: DevOidcProvider;
  let callbackUrl: string;

  beforeAll(async () => {
    h = await startHarness(kind);
    callbackUrl = `${h.url}/oauth/callback`;
    idp = await startDevOidcProvider({
      clients: [
        { ...CLIENT, redirectUris: [callbackUrl] },
        { ...OTHER, redirectUris: [callbackUrl] },
      ],
      users: [
        ...DEV_OIDC_USERS,
        { sub: "hedy", email: "hedy@example.com", name: "Hedy Lamarr", emailVerified: true },
      ],
    });
    auth0 = await startDevOidcProvider({
      clients: [{ ...CLIENT, redirectUris: [callbackUrl] }],
      claimsInIdToken: false,
      users: [{ sub: "linus", email: "linus@example.com", name: "Linus", emailVerified: true }],
    });
    await upsertApp(
      { db: h.service.ctx.db, now: Date.now(), keyring: h.service.ctx.keyring },
      {
        ...TEST_APP,
        oauthProviders: [
          { id: "google", issuer: idp.issuer, ...CLIENT, allowInsecureHttp: true },
          {
            id: "auth0",
            issuer: auth0.issuer,
            ...CLIENT,
            allowInsecureHttp: true,
            auth0Connection: "Username-Password-Authentication",
          },
        ],
        oauthRedirectUrls: ["http://app.test/welcome"],
      },
    );
    // A split-custody app with the same provider (issue 44): a social sign-up makes a user with no wallet.
    await upsertApp(
      { db: h.service.ctx.db, now: Date.now(), keyring: h.service.ctx.keyring },
      {
        ...SPLIT_APP,
        oauthProviders: [{ id: "google", issuer: idp.issuer, ...CLIENT, allowInsecureHttp: true }],
        oauthRedirectUrls: ["http://split.test/welcome"],
      },
    );
    h.service.ctx.apps.invalidate();
  });
  afterAll(async () => {
    await idp?.close();
    await auth0?.close();
    await h?.close();
  });

  interface Flow {
    provider?: "google" | "auth0";
    user?: string;
    mode?: "popup" | "redirect";
    redirectUrl?: string;
    clientId?: string;
    stateOverride?: (s: Record<string, unknown>) => Record<string, unknown>;
    nonceOverride?: string;
    fetchIdTokenOnly?: boolean;
    abort?: boolean;
    /** Rewrites the provider's redirect back to the callback before the browser follows it. */
    tamperCallback?: (callback: URL) => void;
    /** The app's API key header (default the test app's). */
    app?: Record<string, string>;
  }

  /** Runs a whole sign-in the way a browser would; returns the service's answer to the callback. */
  async function signIn(flow: Flow = {}) {
    const target = targetKey();
    const nonce = sha256hex(target.publicKey);
    const prep = await post(h.url, "/signer/v1/prepare-oauth", { nonce }, flow.app ?? KEY);
    expect(prep.status).toBe(200);
    const providerId = flow.provider ?? "google";
    const idpOf = providerId === "google" ? idp : auth0;
    const provider = (
      prep.json.authProviders as { id: string; clientId: string; authEndpoint: string }[]
    ).find((p) => p.id === providerId);
    expect(provider).toMatchObject({ id: providerId, clientId: CLIENT.clientId });
    let state: Record<string, unknown> = {
      authProviderId: providerId,
      requestKey: prep.json.requestKey,
      targetPublicKey: target.publicKey,
      mode: flow.mode ?? "redirect",
      ...((flow.mode ?? "redirect") === "redirect"
        ? { redirectUrl: flow.redirectUrl ?? "http://app.test/welcome?from=test" }
        : { openerOrigin: "http://app.test" }),
      ...(flow.fetchIdTokenOnly ? { fetchIdTokenOnly: true } : {}),
    };
    if (flow.stateOverride) state = flow.stateOverride(state);
    const auth = new URL(provider?.authEndpoint as string);
    auth.search = new URLSearchParams({
      client_id: flow.clientId ?? CLIENT.clientId,
      redirect_uri: callbackUrl,
      response_type: "code",
      scope: "openid email profile",
      state: b64url(state),
      nonce: flow.nonceOverride ?? nonce,
      code_challenge: prep.json.codeChallenge as string,
      code_challenge_method: "S256",
      prompt: "select_account",
    }).toString();

    const browser = new Browser();
    const interaction = await browser.followUntilLeaving(auth.toString(), idpOf.issuer);
    expect(interaction).toContain(idpOf.issuer);
    const page = await browser.get(interaction);
    const html = await page.text();
    expect(html).toContain("Choose an account");
    const uid = /\/interaction\/([^/"]+)\/login/.exec(html)?.[1] as string;
    const action = flow.abort ? "abort" : "login";
    const back = await browser.followUntilLeaving(
      `${idpOf.issuer}/interaction/${uid}/${action}`,
      idpOf.issuer,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ sub: flow.user ?? "ada" }).toString(),
      },
    );
    expect(back.startsWith(callbackUrl)).toBe(true);
    const tampered = new URL(back);
    flow.tamperCallback?.(tampered);
    const res = await fetch(tampered, { redirect: "manual" });
    return { res, target, callback: back, body: res.status === 302 ? "" : await res.text() };
  }

  /** POST add-oauth-provider for `user`, stamped with its session key. */
  function addProviders(
    user: { orgId: string; userId: string },
    oauthProviders: { providerName: string; oidcToken: unknown; targetPublicKey?: string }[],
    sessionKey: Parameters<typeof stamped>[2],
  ) {
    return post(
      h.url,
      "/signer/v1/add-oauth-provider",
      stamped(
        "/public/v1/submit/create_oauth_providers",
        {
          type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
          timestampMs: String(Date.now()),
          organizationId: user.orgId,
          parameters: { userId: user.userId, oauthProviders },
        },
        sessionKey,
      ),
      KEY,
    );
  }

  function popupMessage(html: string) {
    const m = /var m=(\{.*?\});try/.exec(html);
    return JSON.parse(m?.[1] ?? "null") as Record<string, unknown>;
  }

  it("signs up by redirect, then the same user signs in by pop-up", async () => {
    const first = await signIn({ user: "ada" });
    expect(first.res.status).toBe(302);
    const to = new URL(first.res.headers.get("location") as string);
    expect(to.origin + to.pathname).toBe("http://app.test/welcome");
    expect(to.searchParams.get("from")).toBe("test");
    expect(to.searchParams.get("isSignup")).toBe("true");
    const orgId = to.searchParams.get("orgId") as string;
    const key = await first.target.open(to.searchParams.get("bundle") as string);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: orgId }, key),
      KEY,
    );
    expect(who.json).toMatchObject({ orgId, email: "ada@example.com" });
    const idToken = to.searchParams.get("idToken") as string;
    expect(JSON.parse(Buffer.from(idToken.split(".")[1] as string, "base64url").toString())).toMatchObject({
      sub: "ada",
      aud: CLIENT.clientId,
    });

    const second = await signIn({ user: "ada", mode: "popup" });
    expect(second.res.status).toBe(200);
    expect(second.res.headers.get("content-security-policy")).toMatch(/script-src 'sha256-/);
    expect(second.body).toContain('"http://app.test"');
    const msg = popupMessage(second.body);
    expect(msg).toMatchObject({ status: "SUCCESS", orgId, isSignup: false, authProvider: "google" });
    const key2 = await second.target.open(msg.bundle as string);
    const who2 = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: orgId }, key2),
      KEY,
    );
    expect(who2.json.userId).toBe(who.json.userId);

    const methods = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      { suborgId: orgId, ...stamped("/public/v1/query/whoami", { organizationId: orgId }, key2) },
      KEY,
    );
    expect(methods.json.oauthProviders).toEqual([
      expect.objectContaining({
        providerName: "google",
        issuer: idp.issuer,
        userDisplayName: "ada@example.com",
      }),
    ]);
  });

  it("in a split-custody app a social sign-up makes a user with no wallet; the key holder's wallet signs with its share", async () => {
    const first = await signIn({ user: "hedy", app: SPLIT, redirectUrl: "http://split.test/welcome" });
    expect(first.res.status).toBe(302);
    const to = new URL(first.res.headers.get("location") as string);
    expect(to.origin + to.pathname).toBe("http://split.test/welcome");
    expect(to.searchParams.get("isSignup")).toBe("true");
    const orgId = to.searchParams.get("orgId") as string;
    const sessionKey = await first.target.open(to.searchParams.get("bundle") as string);
    const whoami = async () =>
      post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: orgId }, sessionKey),
        SPLIT,
      );
    const before = await whoami();
    expect(before.json).toMatchObject({
      orgId,
      email: "hedy@example.com",
      custody: "split",
      walletState: "none",
    });
    expect(before.json.address).toBeUndefined();
    expect(
      await h.service.ctx.db.selectFrom("wallets").select("id").where("org_id", "=", orgId).execute(),
    ).toEqual([]);

    const holder = await makeSplitWallet(
      h,
      { orgId, userId: before.json.userId as string, sessionKey },
      SPLIT,
    );
    expect((await whoami()).json).toMatchObject({ walletState: "ready", address: holder.address });
    // No whole secret at rest: the wallet row holds the service share only, the accounts no keys.
    const wallet = await h.service.ctx.db
      .selectFrom("wallets")
      .select(["sealed_mnemonic", "custody", "sealed_service_share"])
      .where("org_id", "=", orgId)
      .executeTakeFirstOrThrow();
    expect(wallet).toMatchObject({ sealed_mnemonic: "", custody: "split" });
    expect(wallet.sealed_service_share).not.toBe("");
    const keys = await h.service.ctx.db
      .selectFrom("wallet_accounts")
      .select("sealed_private_key")
      .where("org_id", "=", orgId)
      .execute();
    expect(keys.map((k) => k.sealed_private_key)).toEqual(["", ""]);

    const digest = `0x${"ab".repeat(32)}` as const;
    const signed = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest));
    expect(signed.status).toBe(200);
    const sig = (
      signed.json.activity as { result: { signRawPayloadResult: { r: string; s: string; v: string } } }
    ).result.signRawPayloadResult;
    const signature = `0x${sig.r}${sig.s}${(27 + Number.parseInt(sig.v, 16)).toString(16)}` as const;
    expect(await recoverAddress({ hash: digest, signature })).toBe(getAddress(holder.address));
    const refused = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest), {
      share: "none",
    });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("USER_SHARE_REQUIRED");

    // Signing in again by the provider finds the same user and wallet.
    const second = await signIn({ user: "hedy", app: SPLIT, redirectUrl: "http://split.test/welcome" });
    const again = new URL(second.res.headers.get("location") as string);
    expect(again.searchParams.get("orgId")).toBe(orgId);
    expect(again.searchParams.get("isSignup")).toBe("false");
  });

  it("refuses a replayed state, a tampered state and a redirect URL off the allow-list", async () => {
    const first = await signIn({ user: "alan" });
    expect(first.res.status).toBe(302);
    const replay = await fetch(first.callback, { redirect: "manual" });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already used");

    const garbage = await fetch(`${callbackUrl}?code=x&state=not-a-state`, { redirect: "manual" });
    expect(garbage.status).toBe(400);

    // Another browser's key put into the state: the request's nonce no longer matches.
    const other = targetKey();
    const tampered = await signIn({
      user: "alan",
      stateOverride: (s) => ({ ...s, targetPublicKey: other.publicKey }),
    });
    const loc = new URL(tampered.res.headers.get("location") as string);
    expect(loc.searchParams.get("error")).toBe("The sign-in request does not match this browser");
    expect(loc.searchParams.get("bundle")).toBeNull();

    const offList = await signIn({ user: "alan", redirectUrl: "http://evil.test/steal" });
    expect(offList.res.status).toBe(400);
    expect(offList.body).toContain("does not allow");
  });

  it("refuses an ID token with the wrong nonce or for another client", async () => {
    const wrongNonce = await signIn({ user: "grace", nonceOverride: "f".repeat(64) });
    const l1 = new URL(wrongNonce.res.headers.get("location") as string);
    expect(l1.searchParams.get("error")).toMatch(/Couldn't complete sign-in/);
    expect(l1.searchParams.get("bundle")).toBeNull();

    const otherClient = await signIn({ user: "grace", clientId: OTHER.clientId });
    const l2 = new URL(otherClient.res.headers.get("location") as string);
    expect(l2.searchParams.get("error")).toMatch(/Couldn't complete sign-in/);
    expect(l2.searchParams.get("bundle")).toBeNull();
  });

  it("reports the user's cancel at the provider", async () => {
    const cancelled = await signIn({ abort: true, mode: "popup" });
    expect(popupMessage(cancelled.body)).toMatchObject({
      status: "ERROR",
      error: "OAuth cancelled",
      authProvider: "google",
    });
  });

  it("passes on a provider's refusal as its code only, never the provider's text", async () => {
    const phishing = "<b>Your account is locked</b>: call +1-555-0100 <img src=x onerror=alert(1)>";
    const refuse = (error: string) => (u: URL) => {
      u.searchParams.set("error", error);
      u.searchParams.set("error_description", phishing);
      u.searchParams.set("error_uri", "https://evil.test/help");
    };
    // A known code (RFC 6749 §4.1.2.1), by redirect: the code alone in the app's URL.
    const scope = await signIn({ abort: true, tamperCallback: refuse("invalid_scope") });
    expect(scope.res.status).toBe(302);
    const loc = scope.res.headers.get("location") as string;
    expect(new URL(loc).searchParams.get("error")).toBe("invalid_scope");
    expect([...new URL(loc).searchParams.keys()].sort()).toEqual(["authProvider", "error", "from"]);
    expect(loc).not.toMatch(/555|locked|evil|onerror/);
    // An OpenID Connect code, by pop-up.
    const login = await signIn({ abort: true, mode: "popup", tamperCallback: refuse("login_required") });
    expect(popupMessage(login.body)).toEqual({
      status: "ERROR",
      error: "login_required",
      authProvider: "google",
    });
    // Anything else, markup or free text in `error` itself: the generic code.
    for (const error of [phishing, "unknown_error"]) {
      const odd = await signIn({ abort: true, mode: "popup", tamperCallback: refuse(error) });
      expect(popupMessage(odd.body)).toEqual({
        status: "ERROR",
        error: "provider_error",
        authProvider: "google",
      });
      expect(odd.body).not.toMatch(/555|locked|evil|onerror/);
    }
  });

  it("links a provider to an existing email account after an email code, then signs in with it alone", async () => {
    const email = "grace@example.com";
    const t = targetKey();
    const before = h.smtp.mails.length;
    const s = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, KEY);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
    await post(
      h.url,
      "/signer/v1/otp",
      { orgId: s.json.orgId, otpId: s.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      KEY,
    );

    const mark = h.smtp.mails.length;
    const linking = await signIn({ user: "grace", mode: "popup" });
    const msg = popupMessage(linking.body);
    expect(msg).toMatchObject({
      status: "ACCOUNT_LINKING_CONFIRMATION_REQUIRED",
      email,
      orgId: s.json.orgId,
      authProvider: "google",
    });
    expect(msg.bundle).toBeUndefined();
    const linkCode = codeFrom((await h.smtp.waitFor(email, mark)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      { orgId: msg.orgId, otpId: msg.otpId, otpCode: linkCode, targetPublicKey: linking.target.publicKey },
      KEY,
    );
    const key = await linking.target.open(otp.json.credentialBundle as string);

    const add = (token: string) =>
      addProviders(
        { orgId: s.json.orgId as string, userId: s.json.userId as string },
        [{ providerName: "google", oidcToken: token }],
        key,
      );
    // Another signed-in account cannot take the linking prompt's token.
    const intruder = await signUpByEmail(h, "intruder@example.com", KEY);
    const stolen = await addProviders(
      intruder,
      [{ providerName: "google", oidcToken: msg.idToken }],
      intruder.sessionKey,
    );
    expect(stolen.status).toBe(400);
    expect(stolen.json.code).toBe("OAUTH_INVALID_TOKEN");
    const forged = await add(`${(msg.idToken as string).slice(0, -4)}AAAA`);
    expect(forged.status).toBe(400);
    expect(forged.json.code).toBe("OAUTH_INVALID_TOKEN");
    const added = await add(msg.idToken as string);
    expect(added.status).toBe(200);
    expect(added.json.oauthProviders).toEqual([expect.objectContaining({ providerName: "google" })]);
    const again = await add(msg.idToken as string);
    expect(again.json.code).toBe("OAUTH_INVALID_TOKEN");

    const next = await signIn({ user: "grace", mode: "popup" });
    expect(popupMessage(next.body)).toMatchObject({
      status: "SUCCESS",
      orgId: s.json.orgId,
      isSignup: false,
    });
  });

  it("fetches only an ID token when asked, and never removes the last way to sign in", async () => {
    const only = await signIn({ user: "ada", mode: "popup", fetchIdTokenOnly: true });
    const msg = popupMessage(only.body);
    expect(msg.status).toBe("FETCHED_ID_TOKEN_ONLY");
    expect(msg.idToken).toBeTruthy();
    expect(msg.bundle).toBeUndefined();

    // Linking a fetched token needs the fetching browser's target key (its nonce): a copied token,
    // or the right token offered with another browser's key, links nothing.
    const fetched = await signIn({ user: "hedy", mode: "popup", fetchIdTokenOnly: true });
    const hedy = popupMessage(fetched.body);
    const owner = await signUpByEmail(h, "fetch-owner@example.com", KEY);
    const link = (targetPublicKey?: string) =>
      addProviders(
        owner,
        [
          {
            providerName: "google",
            oidcToken: hedy.idToken,
            ...(targetPublicKey ? { targetPublicKey } : {}),
          },
        ],
        owner.sessionKey,
      );
    for (const wrong of [undefined, targetKey().publicKey]) {
      const refused = await link(wrong);
      expect(refused.status).toBe(400);
      expect(refused.json.code).toBe("OAUTH_INVALID_TOKEN");
      expect(refused.json.error).toContain("fetched by another browser");
    }
    const linked = await link(fetched.target.publicKey);
    expect(linked.status).toBe(200);
    expect(linked.json.oauthProviders).toEqual([expect.objectContaining({ providerName: "google" })]);

    // An unverified email never links or claims an address: a new user without email.
    const u = await signIn({ user: "unverified", mode: "popup" });
    const um = popupMessage(u.body);
    expect(um).toMatchObject({ status: "SUCCESS", isSignup: true });
    const key = await u.target.open(um.bundle as string);
    const orgId = um.orgId as string;
    const methods = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      { suborgId: orgId, ...stamped("/public/v1/query/whoami", { organizationId: orgId }, key) },
      KEY,
    );
    expect(methods.json.email).toBeUndefined();
    const providerId = (methods.json.oauthProviders as { providerId: string }[])[0]?.providerId;
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: orgId }, key),
      KEY,
    );
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
      timestampMs: String(Date.now()),
      organizationId: orgId,
      parameters: { userId: who.json.userId, providerIds: [providerId] },
    });
    const removed = await post(
      h.url,
      "/signer/v1/remove-oauth-provider",
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, key),
          url: "/public/v1/submit/delete_oauth_providers",
        },
      },
      KEY,
    );
    expect(removed.status).toBe(409);
    expect(removed.json.code).toBe("LAST_AUTH_METHOD");
  });

  it("reads the email from userinfo when the ID token leaves it out", async () => {
    const r = await signIn({ provider: "auth0", user: "linus", mode: "popup" });
    const msg = popupMessage(r.body);
    const idToken = JSON.parse(
      Buffer.from((msg.idToken as string).split(".")[1] as string, "base64url").toString(),
    );
    expect(idToken.email).toBeUndefined();
    expect(msg).toMatchObject({ status: "SUCCESS", isSignup: true, authProvider: "auth0" });
    const key = await r.target.open(msg.bundle as string);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: msg.orgId }, key),
      KEY,
    );
    expect(who.json.email).toBe("linus@example.com");
  });

  it("answers prepare-oauth's bad input clearly", async () => {
    const bad = await post(h.url, "/signer/v1/prepare-oauth", { nonce: "abc" }, KEY);
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("INVALID_REQUEST");
  });
});
