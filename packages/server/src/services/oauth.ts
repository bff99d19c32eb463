import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  ErrorCode,
  type OauthPopupMessage,
  oauthStateSchema,
  type PrepareOauthResponse,
} from "@latchkey/protocol";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import type { z } from "zod";
import type { Db } from "../db";
import { ApiError } from "../errors";
import type { ServiceContext } from "../service";
import type { App, StoredOauthProvider } from "./apps";
import { createEmailOtp } from "./email-auth";
import { issueSession } from "./sessions";
import { findUserByEmail, insertUser, prepareUser, type UserRecord } from "./users";

/** How long a prepared sign-in (PKCE verifier, nonce) may be completed. */
export const OAUTH_REQUEST_TTL_MS = 10 * 60 * 1000;

type OauthState = z.output<typeof oauthStateSchema>;
type RuntimeCtx = Pick<ServiceContext, "keyring" | "now">;
type TokenCtx = Pick<ServiceContext, "db" | "keyring" | "now">;

const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

// ---- provider metadata ----

interface ProviderRuntime {
  config: oidc.Configuration;
  jwks: ReturnType<typeof createRemoteJWKSet>;
  at: number;
}
const runtimes = new Map<string, ProviderRuntime>();
const RUNTIME_TTL_MS = 10 * 60 * 1000;

/** Discovery, the client and the JWKS of a provider, cached for ten minutes. */
async function providerRuntime(ctx: RuntimeCtx, app: App, p: StoredOauthProvider): Promise<ProviderRuntime> {
  const key = `${app.id}/${p.id}/${p.issuer}/${p.clientId}`;
  const cached = runtimes.get(key);
  if (cached && ctx.now() - cached.at < RUNTIME_TTL_MS) return cached;
  const secret = p.sealedClientSecret
    ? (await ctx.keyring.open(p.sealedClientSecret, `oauth_client:${app.id}:${p.id}`)).toString("utf8")
    : undefined;
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(p.issuer),
      p.clientId,
      undefined,
      secret ? oidc.ClientSecretPost(secret) : oidc.None(),
      p.allowInsecureHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  } catch (e) {
    throw new ApiError(
      502,
      ErrorCode.OAUTH_EXCHANGE_FAILED,
      `Could not reach ${p.displayName}: ${(e as Error).message}`,
    );
  }
  const jwksUri = config.serverMetadata().jwks_uri;
  if (!jwksUri)
    throw new ApiError(502, ErrorCode.OAUTH_EXCHANGE_FAILED, `${p.displayName} publishes no JWKS`);
  const runtime = { config, jwks: createRemoteJWKSet(new URL(jwksUri)), at: ctx.now() };
  runtimes.set(key, runtime);
  return runtime;
}

function providerOf(app: App, id: string): StoredOauthProvider {
  const p = app.oauthProviders.find((x) => x.id === id);
  if (!p) throw new ApiError(400, ErrorCode.OAUTH_PROVIDER_NOT_FOUND, `No OAuth provider ${id} for this app`);
  return p;
}

// ---- prepare ----

/**
 * Starts a social sign-in: a PKCE verifier (kept sealed, server side) and a request key that the
 * client's `state` must name; the nonce binds the ID token to the browser's target key.
 */
export async function prepareOauth(
  ctx: ServiceContext,
  app: App,
  nonce: string,
): Promise<PrepareOauthResponse> {
  const verifier = oidc.randomPKCECodeVerifier();
  const requestKey = randomBytes(24).toString("base64url");
  const now = ctx.now();
  await ctx.db
    .insertInto("oauth_requests")
    .values({
      request_key: requestKey,
      app_id: app.id,
      nonce,
      sealed_verifier: ctx.keyring.seal(new TextEncoder().encode(verifier), `oauth_request:${requestKey}`),
      expires_at: now + OAUTH_REQUEST_TTL_MS,
      used_at: null,
      id_token_hash: null,
      linked_at: null,
      created_at: now,
    })
    .execute();
  const authProviders = await Promise.all(
    app.oauthProviders.map(async (p) => {
      const rt = await providerRuntime(ctx, app, p);
      const authEndpoint = rt.config.serverMetadata().authorization_endpoint ?? "";
      return {
        id: p.id,
        ...(p.isCustomProvider ? { isCustomProvider: true } : {}),
        clientId: p.clientId,
        authEndpoint,
      };
    }),
  );
  return { codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), requestKey, authProviders };
}

// ---- callback ----

export type CallbackAnswer =
  | { kind: "redirect"; location: string }
  | { kind: "popup"; origin: string; message: OauthPopupMessage }
  | { kind: "page"; status: number; title: string; message: string };

function decodeState(raw: string | undefined): OauthState | null {
  if (!raw || raw.length > 8192) return null;
  try {
    const parsed = oauthStateSchema.safeParse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function redirectAllowed(app: App, url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.hash) return false;
  return app.oauthRedirectUrls.some((allowed) => {
    const a = new URL(allowed);
    return a.origin === u.origin && a.pathname === u.pathname;
  });
}

function answer(state: OauthState, message: OauthPopupMessage): CallbackAnswer {
  if (state.mode === "popup")
    return { kind: "popup", origin: new URL(state.openerOrigin ?? "").origin, message };
  const target = new URL(state.redirectUrl ?? "");
  for (const [k, v] of Object.entries(message)) {
    if (v !== undefined && k !== "status") target.searchParams.set(k, String(v));
  }
  if (message.status !== "SUCCESS" && message.status !== "ERROR")
    target.searchParams.set("status", message.status);
  return { kind: "redirect", location: target.toString() };
}

/**
 * The provider's redirect back to the service. In order: the state must parse and name an unexpired,
 * unused request of a known app (consumed atomically, so a replayed state is refused); its target key
 * must hash to the request's nonce; the reply goes only to an allow-listed redirect URL or an allowed
 * opener origin; the code is exchanged with the PKCE verifier; the ID token is validated (signature via
 * JWKS, issuer, audience, expiry, nonce); then the user is found, linked or created.
 */
export async function handleOauthCallback(
  ctx: ServiceContext,
  query: Record<string, string | undefined>,
  callbackUrl: string,
  ip: string,
): Promise<CallbackAnswer> {
  const invalid = (message: string): CallbackAnswer => ({
    kind: "page",
    status: 400,
    title: "Sign-in failed",
    message,
  });
  const state = decodeState(query.state);
  if (!state) return invalid("This sign-in link is invalid. Close this window and try again.");
  const now = ctx.now();
  const request = await ctx.db
    .selectFrom("oauth_requests")
    .selectAll()
    .where("request_key", "=", state.requestKey)
    .executeTakeFirst();
  if (!request || request.expires_at <= now)
    return invalid("This sign-in has expired. Close this window and try again.");
  const app = await ctx.apps.byId(request.app_id);
  if (!app) return invalid("This sign-in is no longer valid.");
  // Where the answer may go is settled before anything else is trusted.
  if (state.mode === "redirect" && !(state.redirectUrl && redirectAllowed(app, state.redirectUrl))) {
    return invalid("This sign-in asked to return to an address the app does not allow.");
  }
  if (
    state.mode === "popup" &&
    !(state.openerOrigin && app.allowedOrigins.includes(new URL(state.openerOrigin).origin))
  ) {
    return invalid("This sign-in was started from a page the app does not allow.");
  }
  const consumed = await ctx.db
    .updateTable("oauth_requests")
    .set({ used_at: now })
    .where("request_key", "=", request.request_key)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1)
    return invalid("This sign-in was already used. Close this window and try again.");

  const fail = (error: string) =>
    answer(state, { status: "ERROR", error, authProvider: state.authProviderId });
  if (sha256hex(state.targetPublicKey) !== request.nonce)
    return fail("The sign-in request does not match this browser");
  // A user who cancels at the provider gets the spec's text, so the client treats it as a cancel.
  if (query.error === "access_denied") return fail("OAuth cancelled");
  if (query.error) return fail(query.error_description ?? query.error);
  const provider = app.oauthProviders.find((p) => p.id === state.authProviderId);
  if (!provider) return fail(`No OAuth provider ${state.authProviderId} for this app`);

  let claims: Record<string, unknown>;
  let idToken: string;
  try {
    const rt = await providerRuntime(ctx, app, provider);
    const verifier = (
      await ctx.keyring.open(request.sealed_verifier, `oauth_request:${request.request_key}`)
    ).toString("utf8");
    const current = new URL(callbackUrl);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) current.searchParams.set(k, v);
    const tokens = await oidc.authorizationCodeGrant(rt.config, current, {
      pkceCodeVerifier: verifier,
      expectedState: query.state,
      expectedNonce: request.nonce,
      idTokenExpected: true,
    });
    idToken = tokens.id_token ?? "";
    // openid-client checks issuer, audience, expiry and nonce; the signature is checked here against JWKS.
    const verified = await jwtVerify(idToken, rt.jwks, {
      issuer: provider.issuer,
      audience: provider.clientId,
      clockTolerance: 30,
    });
    if (verified.payload.nonce !== request.nonce) return fail("The ID token's nonce does not match");
    claims = verified.payload as Record<string, unknown>;
    // Some providers keep the email in userinfo only.
    if (
      claims.email === undefined &&
      provider.scopes.includes("email") &&
      rt.config.serverMetadata().userinfo_endpoint
    ) {
      const info = await oidc.fetchUserInfo(rt.config, tokens.access_token, String(claims.sub));
      claims = { ...claims, email: info.email, email_verified: info.email_verified };
    }
  } catch (e) {
    ctx
      .audit("oauth.failed", {
        appId: app.id,
        ip,
        details: { provider: provider.id, reason: (e as Error).message },
      })
      .catch(() => {});
    return fail(`Couldn't complete sign-in with ${provider.displayName}`);
  }
  await ctx.db
    .updateTable("oauth_requests")
    .set({ id_token_hash: sha256hex(idToken), fetch_only: state.fetchIdTokenOnly ? 1 : 0 })
    .where("request_key", "=", request.request_key)
    .execute();

  if (state.fetchIdTokenOnly)
    return answer(state, { status: "FETCHED_ID_TOKEN_ONLY", idToken, authProvider: provider.id });

  const issuer = String(claims.iss);
  const subject = String(claims.sub);
  const email = typeof claims.email === "string" ? claims.email.toLowerCase() : undefined;
  const emailVerified = claims.email_verified === true || claims.email_verified === "true";

  const linked = await ctx.db
    .selectFrom("user_oauth_providers")
    .innerJoin("users", "users.id", "user_oauth_providers.user_id")
    .select(["users.id", "users.org_id", "users.app_id", "users.email"])
    .where("user_oauth_providers.app_id", "=", app.id)
    .where("user_oauth_providers.issuer", "=", issuer)
    .where("user_oauth_providers.subject", "=", subject)
    .executeTakeFirst();
  if (linked) {
    const user: UserRecord = {
      id: linked.id,
      orgId: linked.org_id,
      appId: linked.app_id,
      email: linked.email,
    };
    const session = await issueSession(
      ctx.db,
      user,
      state.targetPublicKey,
      state.expirationSeconds,
      now,
      "oauth",
    );
    await ctx.audit("user.signin", {
      appId: app.id,
      userId: user.id,
      ip,
      details: { method: "oauth", provider: provider.id },
    });
    return answer(state, {
      status: "SUCCESS",
      bundle: session.credentialBundle,
      orgId: user.orgId,
      idToken,
      isSignup: false,
      authProvider: provider.id,
    });
  }

  // The provider's verified email belongs to an existing user: prove the mailbox before linking.
  const existing = email && emailVerified ? await findUserByEmail(ctx.db, app.id, email) : null;
  if (existing && email) {
    const { otpId, mail } = await createEmailOtp(ctx, app, existing, email, now);
    await ctx.db
      .updateTable("oauth_requests")
      .set({ link_org_id: existing.orgId })
      .where("request_key", "=", request.request_key)
      .execute();
    ctx.mailer.send(mail);
    return answer(state, {
      status: "ACCOUNT_LINKING_CONFIRMATION_REQUIRED",
      otpId,
      email,
      orgId: existing.orgId,
      idToken,
      authProvider: provider.id,
    });
  }

  // A new user: the wallet, the user and the link in one transaction.
  const prepared = await prepareUser(
    ctx.keyring,
    app.id,
    email && emailVerified ? email : null,
    now,
    null,
    ctx.wallets.derive,
  );
  const created = await ctx.db.transaction().execute(async (trx) => {
    const u = await insertUser(trx, prepared);
    await linkProvider(trx, u, provider.id, issuer, subject, email ?? null, now);
    return u;
  });
  const session = await issueSession(
    ctx.db,
    created,
    state.targetPublicKey,
    state.expirationSeconds,
    now,
    "oauth",
  );
  await ctx.audit("user.signup", {
    appId: app.id,
    userId: created.id,
    ip,
    details: { method: "oauth", provider: provider.id },
  });
  return answer(state, {
    status: "SUCCESS",
    bundle: session.credentialBundle,
    orgId: created.orgId,
    idToken,
    isSignup: true,
    authProvider: provider.id,
  });
}

export async function linkProvider(
  db: Db,
  user: UserRecord,
  providerName: string,
  issuer: string,
  subject: string,
  email: string | null,
  now: number,
): Promise<string> {
  const id = randomUUID();
  try {
    await db
      .insertInto("user_oauth_providers")
      .values({
        id,
        app_id: user.appId,
        user_id: user.id,
        provider_name: providerName,
        issuer,
        subject,
        email,
        created_at: now,
      })
      .execute();
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === "23505" || /UNIQUE/.test(err.message ?? "")) {
      throw new ApiError(
        409,
        ErrorCode.OAUTH_PROVIDER_LINKED,
        "This sign-in is already linked to an account",
      );
    }
    throw e;
  }
  return id;
}

// ---- linking a provider to a signed-in user ----

export interface VerifiedProviderToken {
  providerName: string;
  issuer: string;
  subject: string;
  email: string | null;
  tokenHash: string;
}

/**
 * An ID token offered for linking must be one this service itself received at its callback for this app
 * (so a token captured elsewhere cannot be attached), unused for linking, and still valid by signature,
 * issuer, audience and expiry.
 */
export async function verifyProviderToken(
  ctx: TokenCtx,
  app: App,
  providerName: string,
  token: string,
  callerOrgId: string,
  targetPublicKey?: string,
): Promise<VerifiedProviderToken> {
  const provider = providerOf(app, providerName);
  const tokenHash = sha256hex(token);
  const request = await ctx.db
    .selectFrom("oauth_requests")
    .select(["request_key", "linked_at", "expires_at", "link_org_id", "fetch_only", "nonce"])
    .where("id_token_hash", "=", tokenHash)
    .where("app_id", "=", app.id)
    .executeTakeFirst();
  if (request?.link_org_id && request.link_org_id !== callerOrgId) {
    throw new ApiError(
      400,
      ErrorCode.OAUTH_INVALID_TOKEN,
      "This ID token was issued to link another account",
    );
  }
  // A token fetched while signed in carries the fetching browser's key hash as its nonce: only that
  // browser may link it (a crafted return link cannot make another user's browser link it).
  if (request?.fetch_only === 1 && (!targetPublicKey || sha256hex(targetPublicKey) !== request.nonce)) {
    throw new ApiError(
      400,
      ErrorCode.OAUTH_INVALID_TOKEN,
      "This ID token was fetched by another browser: add the provider again from this one",
    );
  }
  if (!request || request.linked_at !== null) {
    throw new ApiError(
      400,
      ErrorCode.OAUTH_INVALID_TOKEN,
      "This ID token was not issued to this app's sign-in, or was already used",
    );
  }
  const rt = await providerRuntime(ctx, app, provider);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, rt.jwks, {
      issuer: provider.issuer,
      audience: provider.clientId,
      clockTolerance: 30,
      currentDate: new Date(ctx.now()),
    }));
  } catch (e) {
    throw new ApiError(
      400,
      ErrorCode.OAUTH_INVALID_TOKEN,
      `The ID token is not valid: ${(e as Error).message}`,
    );
  }
  return {
    providerName: provider.id,
    issuer: String(payload.iss),
    subject: String(payload.sub),
    email: typeof payload.email === "string" ? payload.email.toLowerCase() : null,
    tokenHash,
  };
}

export async function markTokenLinked(db: Db, tokenHash: string, now: number): Promise<void> {
  const r = await db
    .updateTable("oauth_requests")
    .set({ linked_at: now })
    .where("id_token_hash", "=", tokenHash)
    .where("linked_at", "is", null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) {
    throw new ApiError(400, ErrorCode.OAUTH_INVALID_TOKEN, "This ID token was already used");
  }
}

// ---- the pop-up page ----

/** The page a pop-up lands on: it posts the result to the opener's exact origin and closes. */
export function popupPage(origin: string, message: OauthPopupMessage): { html: string; scriptHash: string } {
  const script = `(function(){var m=${JSON.stringify(message).replace(/</g, "\\u003c")};try{if(window.opener){window.opener.postMessage(m,${JSON.stringify(origin)});}}finally{window.close();}})();`;
  const scriptHash = createHash("sha256").update(script).digest("base64");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head><body style="font-family:system-ui,sans-serif;padding:32px;color:#1f2330"><p>${message.status === "ERROR" ? "Sign-in failed. You can close this window." : "Signed in. You can close this window."}</p><script>${script}</script></body></html>`;
  return { html, scriptHash };
}

export function messagePage(title: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:system-ui,sans-serif;padding:32px;color:#1f2330"><h1 style="font-size:20px">${esc(title)}</h1><p>${esc(message)}</p></body></html>`;
}
