import type http from "node:http";
import {
  chooserPage,
  html,
  json,
  listen,
  readForm,
  redeemCode,
  redirectBack,
  type StandIn,
  type StandInClient,
  type StandInUser,
  token,
} from "./common";

/** An access token a stand-in issued: to which app, for whom, with which scopes. */
export interface IssuedToken {
  clientId: string;
  user: StandInUser;
  scopes: string[];
}

/** What makes one OAuth 2.0 stand-in (Facebook, GitHub, Discord) its provider. */
export interface Oauth2Spec {
  provider: string;
  accent: string;
  authorizePath: string;
  tokenPath: string;
  /** A line on the chooser for what the request asks (Facebook's `auth_type=reauthenticate`). */
  note?: (query: URLSearchParams) => string | undefined;
  /** The provider's user API; answers and returns true for its routes. */
  api: (args: {
    req: http.IncomingMessage;
    res: http.ServerResponse;
    url: URL;
    /** The access token presented (query `access_token` or `Authorization: Bearer`), if this stand-in issued it. */
    presented: { token: string; issued: IssuedToken } | undefined;
    clients: StandInClient[];
  }) => boolean;
}

const CODE_TTL_MS = 10 * 60 * 1000;

/**
 * A real OAuth 2.0 authorization server for one provider: the authorization page (client and exact
 * redirect URI checked), one-time codes bound to the redirect URI and the PKCE challenge, a token
 * endpoint taking the client's secret in the form body, and the provider's user API on the same port.
 */
export async function startOauth2StandIn(
  spec: Oauth2Spec,
  opts: {
    clients: StandInClient[];
    users: StandInUser[];
    port?: number;
    now?: () => number;
  },
): Promise<StandIn & { tokens: Map<string, IssuedToken> }> {
  const now = opts.now ?? Date.now;
  const pending = new Map<
    string,
    { clientId: string; redirectUri: string; state: string; scope: string; challenge?: string }
  >();
  const codes = new Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      user: StandInUser;
      scope: string;
      challenge?: string;
      expires: number;
    }
  >();
  const tokens = new Map<string, IssuedToken>();

  const server = await listen(
    async (req, res, url) => {
      if (url.pathname === spec.authorizePath && req.method === "GET") {
        const q = url.searchParams;
        const client = opts.clients.find((c) => c.clientId === q.get("client_id"));
        const redirectUri = q.get("redirect_uri") ?? "";
        if (!client?.redirectUris.includes(redirectUri))
          return html(
            res,
            400,
            `<p>${spec.provider}: unknown app or redirect URI not registered for it.</p>`,
          );
        if (q.get("response_type") !== "code")
          return redirectBack(res, redirectUri, {
            error: "unsupported_response_type",
            state: q.get("state") ?? "",
          });
        const challenge = q.get("code_challenge") ?? undefined;
        if (challenge && q.get("code_challenge_method") !== "S256")
          return redirectBack(res, redirectUri, { error: "invalid_request", state: q.get("state") ?? "" });
        const id = token(12);
        pending.set(id, {
          clientId: client.clientId,
          redirectUri,
          state: q.get("state") ?? "",
          scope: q.get("scope") ?? "",
          ...(challenge ? { challenge } : {}),
        });
        return html(
          res,
          200,
          chooserPage({
            provider: spec.provider,
            accent: spec.accent,
            clientId: client.clientId,
            action: spec.authorizePath,
            hidden: { request: id },
            users: opts.users,
            note: spec.note?.(q),
          }),
        );
      }
      if (url.pathname === spec.authorizePath && req.method === "POST") {
        const form = await readForm(req);
        const p = pending.get(form.get("request") ?? "");
        if (!p) return html(res, 400, "<p>This sign-in request is unknown or was already answered.</p>");
        pending.delete(form.get("request") ?? "");
        if (form.get("cancel"))
          return redirectBack(res, p.redirectUri, { error: "access_denied", state: p.state });
        const user = opts.users.find((u) => u.sub === form.get("sub"));
        if (!user) return html(res, 400, "<p>Unknown test user.</p>");
        const code = token();
        codes.set(code, { ...p, user, expires: now() + CODE_TTL_MS });
        return redirectBack(res, p.redirectUri, { code, state: p.state });
      }
      if (url.pathname === spec.tokenPath) {
        const form = req.method === "POST" ? await readForm(req) : url.searchParams;
        if (req.headers.authorization?.startsWith("Basic "))
          return json(res, 401, {
            error: "invalid_client",
            error_description: "send client_secret in the body",
          });
        const client = opts.clients.find((c) => c.clientId === form.get("client_id"));
        if (!client || client.clientSecret !== form.get("client_secret"))
          return json(res, 401, { error: "invalid_client" });
        const code = redeemCode(codes, form, client.clientId, now());
        if (!code) return json(res, 400, { error: "invalid_grant" });
        const access = token(32);
        tokens.set(access, {
          clientId: client.clientId,
          user: code.user,
          scopes: code.scope.split(/[ ,]+/).filter(Boolean),
        });
        return json(res, 200, {
          access_token: access,
          token_type: "bearer",
          expires_in: 3600,
          scope: code.scope,
        });
      }
      const bearer = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
      const presentedToken = bearer ?? url.searchParams.get("access_token") ?? "";
      const issued = tokens.get(presentedToken);
      if (
        spec.api({
          req,
          res,
          url,
          presented: issued ? { token: presentedToken, issued } : undefined,
          clients: opts.clients,
        })
      )
        return;
      json(res, 404, { message: "Not Found" });
    },
    opts.port !== undefined ? { port: opts.port } : {},
  );

  return { url: server.url, users: opts.users, tokens, close: server.close };
}
