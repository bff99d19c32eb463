import { createHash, generateKeyPairSync } from "node:crypto";
import { jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertApp } from "../src/apps/appDirectory";
import type { ServiceContext } from "../src/context";
import type { DevOidcProvider } from "../src/dev/oidcProvider";
import { startAppleStandIn } from "../src/dev/standIns/apple";
import type { StandIn, StandInUser } from "../src/dev/standIns/common";
import { startDiscordStandIn } from "../src/dev/standIns/discord";
import { type FacebookStandIn, startFacebookStandIn } from "../src/dev/standIns/facebook";
import { startGithubStandIn } from "../src/dev/standIns/github";
import { startTwitchStandIn } from "../src/dev/standIns/twitch";
import type { OauthProviderConfig } from "../src/features/oauth/config";
import { appleClientSecret } from "../src/oauthProviders/appleClientSecret";
import {
  Browser,
  codeFrom,
  type Harness,
  LINK_APP,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";

// Apple, Facebook, Twitch, GitHub and Discord as they really behave, against local stand-ins that behave
// like each (dev/standIns): Apple's form_post and ES256 client secret, Facebook's Graph API with
// appsecret_proof, Twitch's `claims` parameter, GitHub's and Discord's user APIs.

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const LINK_KEY = { authorization: `Bearer ${LINK_APP.apiKeys[0]}` };
type Id = "apple" | "facebook" | "twitch" | "github" | "discord";

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");
const unentity = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] as string, "base64url").toString()) as Record<string, unknown>;

const users = (tag: string): StandInUser[] => [
  { sub: `${tag}-1`, name: "Ada Lovelace", email: `ada.${tag}@example.com`, emailVerified: true },
  { sub: `${tag}-2`, name: "Nomail Person", email: null, emailVerified: false },
  { sub: `${tag}-3`, name: "Alan Turing", email: `alan.${tag}@example.com`, emailVerified: true },
];

describe.each(["sqlite", "postgres"] as const)("social providers as they behave (%s)", (kind) => {
  let h: Harness;
  let callbackUrl: string;
  let apple: StandIn & { issuer: string };
  let facebook: FacebookStandIn;
  let twitch: DevOidcProvider;
  let github: StandIn;
  let discord: StandIn;
  /** How far the Apple stand-in's clock runs ahead of the real one. */
  let appleSkewMs = 0;
  const appleKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const otherKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pem = (k: typeof appleKey) => k.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const APPLE = { clientId: "test.latchkey.web", teamId: "TEAM123456", keyId: "KEY1234567" };
  const FB = { clientId: "4242", clientSecret: "fb-secret-0123456789" };
  const TW = { clientId: "twitch-client", clientSecret: "twitch-secret-0123456789" };
  const GH = { clientId: "Iv1.test", clientSecret: "gh-secret-0123456789" };
  const DC = { clientId: "1234567890", clientSecret: "dc-secret-0123456789" };

  beforeAll(async () => {
    h = await startHarness(kind);
    callbackUrl = `${h.url}/oauth/callback`;
    const redirectUris = [callbackUrl];
    apple = await startAppleStandIn({
      clients: [{ ...APPLE, publicKey: appleKey.publicKey, redirectUris }],
      users: [
        ...users("apple"),
        {
          sub: "apple-relay",
          name: "Grace Hopper",
          email: "x1y2z3@privaterelay.appleid.com",
          emailVerified: true,
        },
      ],
      now: () => Date.now() + appleSkewMs,
    });
    facebook = await startFacebookStandIn({ clients: [{ ...FB, redirectUris }], users: users("fb") });
    twitch = await startTwitchStandIn({
      clients: [{ ...TW, redirectUris }],
      users: users("tw").map((u) => ({ ...u, email: u.email ?? "none.tw@example.com" })),
    });
    github = await startGithubStandIn({ clients: [{ ...GH, redirectUris }], users: users("gh") });
    discord = await startDiscordStandIn({ clients: [{ ...DC, redirectUris }], users: users("dc") });
    const local = { allowInsecureHttp: true };
    const appleConfig = (key: typeof appleKey): OauthProviderConfig => ({
      id: "apple",
      issuer: apple.issuer,
      clientId: APPLE.clientId,
      apple: { teamId: APPLE.teamId, keyId: APPLE.keyId, privateKey: pem(key) },
      ...local,
    });
    const ctx = { db: h.service.ctx.db, now: Date.now(), keyring: h.service.ctx.keyring };
    await upsertApp(ctx, {
      ...TEST_APP,
      oauthProviders: [
        appleConfig(appleKey),
        { id: "facebook", issuer: facebook.url, ...FB, endpoints: facebook.endpoints, ...local },
        { id: "twitch", issuer: twitch.issuer, ...TW, ...local },
        {
          id: "github",
          issuer: github.url,
          ...GH,
          endpoints: (github as StandIn & { endpoints: OauthProviderConfig["endpoints"] }).endpoints,
          ...local,
        },
        {
          id: "discord",
          issuer: discord.url,
          ...DC,
          endpoints: (discord as StandIn & { endpoints: OauthProviderConfig["endpoints"] }).endpoints,
          ...local,
        },
      ],
      oauthRedirectUrls: ["http://app.test/welcome"],
    });
    // Another app whose Apple key is not the one registered at Apple.
    await upsertApp(ctx, {
      ...LINK_APP,
      oauthProviders: [appleConfig(otherKey)],
      oauthRedirectUrls: ["http://link.test/welcome"],
    });
    h.service.ctx.apps.invalidate();
  });
  afterAll(async () => {
    await Promise.all([apple, facebook, twitch, github, discord].map((s) => s?.close()));
    await h?.close();
  });

  interface Flow {
    provider: Id;
    user: string;
    mode?: "popup" | "redirect";
    app?: "test" | "link";
    /** Cancel on the provider's page instead of choosing. */
    cancel?: boolean;
    /** Changes what the provider answers before the browser delivers it to the callback. */
    tamper?: (answer: URLSearchParams) => void;
  }

  /** Runs a whole sign-in the way a browser would; returns the service's answer to the callback. */
  async function signIn(flow: Flow) {
    const key = flow.app === "link" ? LINK_KEY : KEY;
    const origin = flow.app === "link" ? "http://link.test" : "http://app.test";
    const target = targetKey();
    const nonce = sha256hex(target.publicKey);
    const prep = await post(h.url, "/signer/v1/prepare-oauth", { nonce }, key);
    expect(prep.status).toBe(200);
    const provider = (
      prep.json.authProviders as {
        id: string;
        clientId: string;
        authEndpoint: string;
        scope: string;
        authParams: Record<string, string>;
      }[]
    ).find((p) => p.id === flow.provider);
    if (!provider) throw new Error(`no ${flow.provider}`);
    const mode = flow.mode ?? "redirect";
    const state = {
      authProviderId: flow.provider,
      requestKey: prep.json.requestKey,
      targetPublicKey: target.publicKey,
      mode,
      ...(mode === "redirect" ? { redirectUrl: `${origin}/welcome` } : { openerOrigin: origin }),
    };
    const auth = new URL(provider.authEndpoint);
    auth.search = new URLSearchParams({
      client_id: provider.clientId,
      redirect_uri: callbackUrl,
      response_type: "code",
      scope: provider.scope,
      state: b64url(state),
      nonce,
      code_challenge: prep.json.codeChallenge as string,
      code_challenge_method: "S256",
      ...provider.authParams,
    }).toString();

    let answer: { method: "GET" | "POST"; url: URL; form?: URLSearchParams };
    if (flow.provider === "twitch") {
      const browser = new Browser();
      const interaction = await browser.followUntilLeaving(auth.toString(), twitch.issuer);
      const html = await (await browser.get(interaction)).text();
      const uid = /\/interaction\/([^/"]+)\/login/.exec(html)?.[1] as string;
      const back = await browser.followUntilLeaving(
        `${twitch.issuer}/interaction/${uid}/login`,
        twitch.issuer,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ sub: flow.user }).toString(),
        },
      );
      answer = { method: "GET", url: new URL(back) };
    } else {
      const page = await fetch(auth, { redirect: "manual" });
      expect(page.status).toBe(200);
      const html = await page.text();
      const action = unentity(/<form method="post" action="([^"]+)">/.exec(html)?.[1] as string);
      const request = /name="request" value="([^"]+)"/.exec(html)?.[1] as string;
      const chosen = await fetch(new URL(action, auth), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(
          flow.cancel ? { request, cancel: "1" } : { request, sub: flow.user },
        ).toString(),
        redirect: "manual",
      });
      if (chosen.status === 303) {
        answer = { method: "GET", url: new URL(chosen.headers.get("location") as string) };
      } else {
        // Apple: a page whose form posts itself to the callback.
        const posted = await chosen.text();
        const form = /<form method="post" action="([^"]+)">(.*?)<\/form>/s.exec(posted);
        const fields = new URLSearchParams();
        for (const m of (form?.[2] ?? "").matchAll(/name="([^"]+)" value="([^"]*)"/g))
          fields.set(unentity(m[1] as string), unentity(m[2] as string));
        answer = { method: "POST", url: new URL(unentity(form?.[1] as string)), form: fields };
      }
    }
    expect(answer.url.toString().startsWith(callbackUrl)).toBe(true);
    if (flow.tamper) flow.tamper(answer.form ?? answer.url.searchParams);
    const deliver = () =>
      answer.method === "GET"
        ? fetch(answer.url, { redirect: "manual" })
        : fetch(answer.url, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", origin: apple.url },
            body: answer.form?.toString() ?? "",
            redirect: "manual",
          });
    const res = await deliver();
    const body = res.status >= 300 && res.status < 400 ? "" : await res.text();
    return { res, body, target, answer, auth, deliver, sessionKey: () => sessionOf(res, body, target) };
  }

  /** The outcome as the app sees it: the redirect's parameters, or the pop-up's message. */
  function outcome(r: { res: Response; body: string }): Record<string, unknown> {
    const location = r.res.headers.get("location");
    if (location) return Object.fromEntries(new URL(location).searchParams);
    const m = /var m=(\{.*?\});try/.exec(r.body);
    return JSON.parse(m?.[1] ?? "null") as Record<string, unknown>;
  }

  async function sessionOf(res: Response, body: string, target: ReturnType<typeof targetKey>) {
    const o = outcome({ res, body });
    return { orgId: String(o.orgId), key: await target.open(String(o.bundle)) };
  }

  async function who(s: { orgId: string; key: Uint8Array }) {
    return (
      await post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: s.orgId }, s.key),
        KEY,
      )
    ).json;
  }

  async function methods(s: { orgId: string; key: Uint8Array }) {
    const r = await post(
      h.url,
      "/signer/v1/list-auth-methods",
      { suborgId: s.orgId, ...stamped("/public/v1/query/whoami", { organizationId: s.orgId }, s.key) },
      KEY,
    );
    return r.json.oauthProviders as { providerName: string; userDisplayName?: string; issuer: string }[];
  }

  it("Apple: the form post signs up; the name comes with the first authorisation only and is kept", async () => {
    const first = await signIn({ provider: "apple", user: "apple-1" });
    // Apple's request: form_post, no select_account prompt.
    expect(first.auth.searchParams.get("response_mode")).toBe("form_post");
    expect(first.auth.searchParams.has("prompt")).toBe(false);
    expect(first.answer.method).toBe("POST");
    expect(JSON.parse(first.answer.form?.get("user") ?? "{}")).toMatchObject({
      name: { firstName: "Ada", lastName: "Lovelace" },
    });
    expect(first.res.status).toBe(303);
    const o = outcome(first);
    expect(o).toMatchObject({ isSignup: "true", authProvider: "apple" });
    expect(claimsOf(String(o.idToken))).toMatchObject({ email_verified: "true", is_private_email: "false" });
    const s = await first.sessionKey();
    expect(await who(s)).toMatchObject({ email: "ada.apple@example.com" });
    expect(await methods(s)).toEqual([
      expect.objectContaining({ providerName: "apple", userDisplayName: "Ada Lovelace" }),
    ]);

    // Again, by pop-up: Apple sends no name now; a forged one in the form changes nothing.
    const second = await signIn({
      provider: "apple",
      user: "apple-1",
      mode: "popup",
      tamper: (form) => {
        expect(form.has("user")).toBe(false);
        form.set("user", JSON.stringify({ name: { firstName: "Mallory", lastName: "X" } }));
      },
    });
    expect(second.res.status).toBe(200);
    const msg = outcome(second);
    expect(msg).toMatchObject({ status: "SUCCESS", isSignup: false, orgId: s.orgId });
    expect(await methods(await second.sessionKey())).toEqual([
      expect.objectContaining({ userDisplayName: "Ada Lovelace" }),
    ]);
  });

  it.each(["apple", "facebook", "github"] as const)(
    "%s: cancelling at the provider is 'OAuth cancelled'",
    async (id) => {
      const r = await signIn({ provider: id, user: "", mode: "popup", cancel: true });
      expect(outcome(r)).toMatchObject({ status: "ERROR", error: "OAuth cancelled", authProvider: id });
    },
  );

  it("Apple: a private-relay address is a verified email", async () => {
    const r = await signIn({ provider: "apple", user: "apple-relay" });
    const o = outcome(r);
    expect(claimsOf(String(o.idToken))).toMatchObject({ is_private_email: "true", email_verified: "true" });
    expect(await who(await r.sessionKey())).toMatchObject({ email: "x1y2z3@privaterelay.appleid.com" });
  });

  it("Apple: a wrong client-secret signature, an expired secret, a tampered form and a replayed state are refused", async () => {
    // LINK_APP signs with a key Apple does not know.
    const wrongKey = await signIn({ provider: "apple", user: "apple-3", app: "link" });
    expect(wrongKey.res.status).toBe(303);
    expect(outcome(wrongKey)).toMatchObject({ error: "Couldn't complete sign-in with Apple" });
    expect(outcome(wrongKey).bundle).toBeUndefined();

    // Apple's clock two hours on: the service's hour-long secret has expired there.
    appleSkewMs = 2 * 3600_000;
    try {
      const expired = await signIn({ provider: "apple", user: "apple-3" });
      expect(outcome(expired)).toMatchObject({ error: "Couldn't complete sign-in with Apple" });
    } finally {
      appleSkewMs = 0;
    }

    const badCode = await signIn({
      provider: "apple",
      user: "apple-3",
      tamper: (f) => f.set("code", "c-forged"),
    });
    expect(outcome(badCode)).toMatchObject({ error: "Couldn't complete sign-in with Apple" });

    const otherBrowser = targetKey();
    const swapped = await signIn({
      provider: "apple",
      user: "apple-3",
      tamper: (f) => {
        const st = JSON.parse(Buffer.from(f.get("state") ?? "", "base64url").toString());
        f.set("state", b64url({ ...st, targetPublicKey: otherBrowser.publicKey }));
      },
    });
    expect(outcome(swapped)).toMatchObject({ error: "The sign-in request does not match this browser" });

    const ok = await signIn({ provider: "apple", user: "apple-2" });
    expect(outcome(ok)).toMatchObject({ isSignup: "true" });
    const replay = await ok.deliver();
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("This sign-in was already used");
  });

  it("Apple's client secret: signed with the app's sealed key, reused while fresh, re-minted before it expires", async () => {
    const app = await h.service.ctx.apps.byId(TEST_APP.id);
    const provider = app?.oauthProviders.find((p) => p.id === "apple");
    if (!app || !provider) throw new Error("no apple");
    // At rest the key is sealed: the stored provider never holds it in clear.
    expect(JSON.stringify(provider)).not.toContain("PRIVATE KEY");
    let t = Date.now();
    const ctx = {
      keyring: h.service.ctx.keyring,
      now: () => t,
      caches: { providerRuntimes: new Map() } as unknown as ServiceContext["caches"],
    };
    const check = async (secret: string) => {
      const { payload, protectedHeader } = await jwtVerify(secret, appleKey.publicKey, {
        algorithms: ["ES256"],
        issuer: APPLE.teamId,
        subject: APPLE.clientId,
        audience: apple.issuer,
        currentDate: new Date(t),
      });
      expect(protectedHeader.kid).toBe(APPLE.keyId);
      expect(payload.iat).toBe(Math.floor(t / 1000));
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    };
    const first = await appleClientSecret(ctx, { app, provider });
    await check(first);
    t += 45 * 60_000;
    expect(await appleClientSecret(ctx, { app, provider })).toBe(first);
    t += 10 * 60_000;
    const next = await appleClientSecret(ctx, { app, provider });
    expect(next).not.toBe(first);
    await check(next);
  });

  it("the callback takes a form only on its own route, never a 500", async () => {
    const junk = await fetch(`${h.url}/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "state=%00&code=x",
    });
    expect(junk.status).toBe(400);
    const noState = await fetch(`${h.url}/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "code=x",
    });
    expect(noState.status).toBe(400);
    const json = await fetch(`${h.url}/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ state: { nested: true }, error: ["x"] }),
    });
    expect(json.status).toBe(400);
    const api = await fetch(`${h.url}/signer/v1/prepare-oauth`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...KEY },
      body: `nonce=${"a".repeat(64)}`,
    });
    expect(api.status).toBe(415);
  });

  it("Facebook: Graph API with appsecret_proof; reauthenticate, not select_account", async () => {
    const r = await signIn({ provider: "facebook", user: "fb-1" });
    expect(r.auth.searchParams.get("auth_type")).toBe("reauthenticate");
    expect(r.auth.searchParams.has("prompt")).toBe(false);
    expect(r.auth.searchParams.get("scope")).toBe("email public_profile");
    const o = outcome(r);
    expect(o).toMatchObject({ isSignup: "true", authProvider: "facebook" });
    // The service wrote the ID token Facebook does not have.
    expect(claimsOf(String(o.idToken))).toMatchObject({
      iss: facebook.url,
      sub: "fb-1",
      aud: FB.clientId,
      email: "ada.fb@example.com",
    });
    const s = await r.sessionKey();
    expect(await who(s)).toMatchObject({ email: "ada.fb@example.com" });
    const again = await signIn({ provider: "facebook", user: "fb-1", mode: "popup" });
    expect(outcome(again)).toMatchObject({ status: "SUCCESS", isSignup: false, orgId: s.orgId });
  });

  it("Facebook: a person without an email signs up and in, and is never linked by email", async () => {
    await signUpByEmail(h, "nomail.person@example.com", KEY);
    const r = await signIn({ provider: "facebook", user: "fb-2" });
    const o = outcome(r);
    expect(o).toMatchObject({ isSignup: "true" });
    expect(claimsOf(String(o.idToken)).email).toBeUndefined();
    const s = await r.sessionKey();
    expect((await who(s)).email).toBeUndefined();
    const again = await signIn({ provider: "facebook", user: "fb-2", mode: "popup" });
    expect(outcome(again)).toMatchObject({ status: "SUCCESS", isSignup: false, orgId: s.orgId });
  });

  it("Facebook: a Graph answer for another app is refused", async () => {
    facebook.answerForApp("999999");
    try {
      const r = await signIn({ provider: "facebook", user: "fb-3" });
      expect(outcome(r)).toMatchObject({ error: "Couldn't complete sign-in with Facebook" });
      expect(outcome(r).bundle).toBeUndefined();
    } finally {
      facebook.answerForApp(undefined);
    }
  });

  it("Twitch: the email comes in the ID token because the claims parameter asks for it", async () => {
    const r = await signIn({ provider: "twitch", user: "tw-1" });
    expect(JSON.parse(r.auth.searchParams.get("claims") ?? "{}")).toMatchObject({
      id_token: { email: null, email_verified: null },
    });
    expect(r.auth.searchParams.get("force_verify")).toBe("true");
    const o = outcome(r);
    expect(o).toMatchObject({ isSignup: "true", authProvider: "twitch" });
    expect(claimsOf(String(o.idToken))).toMatchObject({
      sub: "tw-1",
      email: "ada.tw@example.com",
      email_verified: true,
    });
    const again = await signIn({ provider: "twitch", user: "tw-1", mode: "popup" });
    expect(outcome(again)).toMatchObject({ status: "SUCCESS", isSignup: false });
  });

  it.each(["github", "discord"] as const)(
    "%s: signs up by redirect and in by pop-up from its user API",
    async (id) => {
      const tag = id === "github" ? "gh" : "dc";
      const r = await signIn({ provider: id, user: `${tag}-1` });
      const o = outcome(r);
      expect(o).toMatchObject({ isSignup: "true", authProvider: id });
      const s = await r.sessionKey();
      expect(await who(s)).toMatchObject({ email: `ada.${tag}@example.com` });
      const again = await signIn({ provider: id, user: `${tag}-1`, mode: "popup" });
      expect(outcome(again)).toMatchObject({ status: "SUCCESS", isSignup: false, orgId: s.orgId });
    },
  );

  it.each(["apple", "facebook", "twitch", "github", "discord"] as const)(
    "%s: a verified email of an existing user asks for the email code, then links",
    async (id) => {
      const tag = { apple: "apple", facebook: "fb", twitch: "tw", github: "gh", discord: "dc" }[id];
      const email = `alan.${tag}@example.com`;
      const user = await signUpByEmail(h, email, KEY);
      const mark = h.smtp.mails.length;
      const r = await signIn({ provider: id, user: `${tag}-3`, mode: "popup" });
      const o = outcome(r);
      expect(o).toMatchObject({ status: "ACCOUNT_LINKING_CONFIRMATION_REQUIRED", email, orgId: user.orgId });
      const code = codeFrom((await h.smtp.waitFor(email, mark)).raw);
      const verified = await post(
        h.url,
        "/signer/v1/otp",
        { orgId: user.orgId, otpId: o.otpId, otpCode: code, targetPublicKey: r.target.publicKey },
        KEY,
      );
      expect(verified.status).toBe(200);
      const key = await r.target.open(verified.json.credentialBundle as string);
      const added = await post(
        h.url,
        "/signer/v1/add-oauth-provider",
        stamped(
          "/public/v1/submit/create_oauth_providers",
          {
            type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
            timestampMs: String(Date.now()),
            organizationId: user.orgId,
            parameters: { userId: user.userId, oauthProviders: [{ providerName: id, oidcToken: o.idToken }] },
          },
          key,
        ),
        KEY,
      );
      expect(added.status).toBe(200);
      const next = await signIn({ provider: id, user: `${tag}-3` });
      expect(outcome(next)).toMatchObject({ orgId: user.orgId, isSignup: "false" });
    },
  );
});
