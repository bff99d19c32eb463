import { isOriginAllowed, type OauthPopupMessage, urlAllowedBy } from "@latchkey/protocol";
import { oauthStateSchema } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { exchangeCode, type ProviderSignIn } from "../../oauthProviders/exchangeCode";
import { linkProvider } from "../../oauthProviders/providerLinks";
import { sha256hex } from "../../oauthProviders/verifyProviderToken";
import { createEmailOtp } from "../../otp/emailOtp";
import { issueSession } from "../../sessions/issueSession";
import { createUser, findUserByEmail, type UserRecord } from "../../users/userStore";

type OauthState = z.output<typeof oauthStateSchema>;

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
  return app.oauthRedirectUrls.some((allowed) => urlAllowedBy(allowed, u));
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
 * opener origin; the code is exchanged with the PKCE verifier and the person read as the provider's
 * description says (exchangeCode: an ID token validated by signature via JWKS, issuer, audience, expiry and
 * nonce, or an OAuth 2.0 provider's user API); then the user is found, linked or created. The answer comes
 * as a query (a redirect) or as a POSTed form (Apple's `form_post`); the same rules hold for both.
 */
export async function handleOauthCallback(
  ctx: ServiceContext,
  params: { query: Record<string, string | undefined>; callbackUrl: string; ip: string },
): Promise<CallbackAnswer> {
  const { query, callbackUrl, ip } = params;
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
    !(state.openerOrigin && isOriginAllowed(app.allowedOrigins, new URL(state.openerOrigin).origin))
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
  if (query.error === "access_denied" || query.error === "user_cancelled_authorize")
    return fail("OAuth cancelled");
  if (query.error) return fail(query.error_description ?? query.error);
  const provider = app.oauthProviders.find((p) => p.id === state.authProviderId);
  if (!provider) return fail(`No OAuth provider ${state.authProviderId} for this app`);

  let signIn: ProviderSignIn;
  try {
    const verifier = (
      await ctx.keyring.open(request.sealed_verifier, `oauth_request:${request.request_key}`)
    ).toString("utf8");
    signIn = await exchangeCode(ctx, {
      app,
      provider,
      answer: query,
      callbackUrl,
      verifier,
      nonce: request.nonce,
    });
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
  const { idToken } = signIn;
  await ctx.db
    .updateTable("oauth_requests")
    .set({
      id_token_hash: sha256hex(idToken),
      fetch_only: state.fetchIdTokenOnly ? 1 : 0,
      display_name: signIn.name ?? null,
    })
    .where("request_key", "=", request.request_key)
    .execute();

  if (state.fetchIdTokenOnly)
    return answer(state, { status: "FETCHED_ID_TOKEN_ONLY", idToken, authProvider: provider.id });

  /** A session for `user`, sealed to the browser's key, and the answer that carries it. */
  const signedIn = async (user: UserRecord, isSignup: boolean): Promise<CallbackAnswer> => {
    const session = await issueSession(ctx, {
      user,
      targetPublicKey: state.targetPublicKey,
      expirationSeconds: state.expirationSeconds,
      name: "oauth",
      signedInBy: "oauth",
    });
    await ctx.audit(isSignup ? "user.signup" : "user.signin", {
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
      isSignup,
      authProvider: provider.id,
    });
  };

  const { issuer } = signIn;
  const { subject, emailVerified } = signIn.user;
  const email = signIn.user.email ?? undefined;

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
    return signedIn(user, false);
  }

  // The provider's verified email belongs to an existing user: prove the mailbox before linking.
  const existing = email && emailVerified ? await findUserByEmail(ctx.db, app.id, email) : null;
  if (existing && email) {
    const { otpId, mail } = await createEmailOtp(ctx, { app, user: existing, email });
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
  const newEmail = email && emailVerified ? email : null;
  const created = await createUser(ctx, { appId: app.id, email: newEmail }, async (trx, u) => {
    await linkProvider(
      { ...ctx, db: trx },
      {
        user: u,
        providerName: provider.id,
        issuer,
        subject,
        email: email ?? null,
        name: signIn.name ?? null,
      },
    );
    return u;
  });
  return signedIn(created, true);
}
