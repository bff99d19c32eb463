import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real OpenID Connect provider for dev and tests, standing in for Google & co.: discovery, JWKS
 * (RS256), authorization code with PKCE, and a login page that lists a few test users. Never used in
 * production; `latchkey serve --dev` and the tests start it.
 */

export interface DevOidcUser {
  sub: string;
  email: string;
  name: string;
  emailVerified: boolean;
}

/**
 * oidc-provider warns as it loads and starts (Node 20 is older than it likes; the in-memory adapter is
 * dev-only, which is exactly the use here). Those lines would only alarm a person trying the demo.
 */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("oidc-provider WARNING")) return;
    warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

export const DEV_OIDC_USERS: DevOidcUser[] = [
  { sub: "ada", email: "ada@example.com", name: "Ada Lovelace", emailVerified: true },
  { sub: "grace", email: "grace@example.com", name: "Grace Hopper", emailVerified: true },
  { sub: "alan", email: "alan@example.com", name: "Alan Turing", emailVerified: true },
  { sub: "unverified", email: "unverified@example.com", name: "Unverified Email", emailVerified: false },
];

/**
 * Resolves when what dev mode's sign-in providers need is installed (`oidc-provider`, an optional peer
 * dependency of `@latchkey/server`); otherwise rejects with the command that installs it.
 */
export async function checkDevDependencies(): Promise<void> {
  try {
    await quietly(() => import("oidc-provider"));
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw e;
    throw new Error(
      "Dev mode needs oidc-provider, an optional peer dependency of @latchkey/server that production never loads: npm i -D oidc-provider",
    );
  }
}

export interface DevOidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface DevOidcProvider {
  issuer: string;
  users: DevOidcUser[];
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(
  uid: string,
  clientId: string,
  users: DevOidcUser[],
  heading = "Choose an account",
): string {
  const buttons = users
    .map(
      (u) => `<button type="submit" name="sub" value="${esc(u.sub)}" class="user" data-sub="${esc(u.sub)}">
  <span class="avatar">${esc(u.name.slice(0, 1))}</span><span><strong>${esc(u.name)}</strong><small>${esc(u.email)}${u.emailVerified ? "" : " (unverified)"}</small></span></button>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Choose an account</title>
<style>
body{margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f4f7;color:#1f2330;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border:1px solid #e6e6ec;border-radius:16px;padding:28px;width:min(360px,90vw)}
h1{font-size:20px;margin:0 0 4px}p{color:#6b7085;margin:0 0 20px;font-size:14px}
.user{display:flex;gap:12px;align-items:center;width:100%;text-align:left;background:none;border:1px solid #e6e6ec;border-radius:12px;padding:10px 12px;margin:0 0 8px;cursor:pointer;font:inherit}
.user:hover,.user:focus-visible{border-color:#363ff9;outline:none}
.user small{display:block;color:#6b7085}.avatar{width:32px;height:32px;border-radius:50%;background:#363ff9;color:#fff;display:grid;place-items:center;font-weight:600}
.cancel{background:none;border:none;color:#6b7085;cursor:pointer;margin-top:8px;font:inherit}
</style></head><body><main>
<h1>${esc(heading)}</h1><p>to continue to ${esc(clientId)} · Latchkey dev identity provider</p>
<form method="post" action="/interaction/${esc(uid)}/login">${buttons}</form>
<form method="post" action="/interaction/${esc(uid)}/abort"><button class="cancel" type="submit">Cancel</button></form>
</main></body></html>`;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

export async function startDevOidcProvider(opts: {
  port?: number;
  host?: string;
  clients: DevOidcClient[];
  users?: DevOidcUser[];
  /** false: email and name only from userinfo, as some providers do (default true, as Google does). */
  claimsInIdToken?: boolean;
  /**
   * "twitch": behave as Twitch does: the email comes with the `user:read:email` scope, and in the ID token
   * only when the `claims` request parameter asks for it; no `prompt`, `force_verify=true` asks again.
   */
  like?: "twitch";
}): Promise<DevOidcProvider> {
  const twitch = opts.like === "twitch";
  const users = opts.users ?? DEV_OIDC_USERS;
  const host = opts.host ?? "127.0.0.1";
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(opts.port ?? 0, host, r));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`;

  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = {
    ...privateKey.export({ format: "jwk" }),
    kid: randomBytes(8).toString("hex"),
    use: "sig",
    alg: "RS256",
  };

  const { default: Provider, interactionPolicy } = await quietly(() => import("oidc-provider"));
  // The sign-in request asks for prompt=select_account; the default policy does not know it.
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: "select_account", requestable: true }), 0);

  const provider = await quietly(
    async () =>
      new Provider(issuer, {
        clients: opts.clients.map((c) => ({
          client_id: c.clientId,
          client_secret: c.clientSecret,
          redirect_uris: c.redirectUris,
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_post",
        })),
        jwks: { keys: [jwk] },
        cookies: { keys: [randomBytes(32).toString("hex")] },
        claims: twitch
          ? {
              openid: ["sub"],
              "user:read:email": ["email", "email_verified"],
              profile: ["preferred_username"],
            }
          : { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
        // Like Google: the scope's claims are in the ID token itself (Twitch: only what `claims` asks).
        conformIdTokenClaims: twitch || opts.claimsInIdToken === false,
        features: { devInteractions: { enabled: false }, claimsParameter: { enabled: twitch } },
        pkce: { required: () => true },
        interactions: { policy, url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        async findAccount(_ctx, sub) {
          const user = users.find((u) => u.sub === sub);
          if (!user) return undefined;
          return {
            accountId: sub,
            async claims() {
              return {
                sub,
                email: user.email,
                email_verified: user.emailVerified,
                name: user.name,
                preferred_username: user.name.toLowerCase().replace(/\s+/g, "_"),
              };
            },
          };
        },
        // Consent is implied: it is a dev provider and the client is first party.
        async loadExistingGrant(ctx) {
          const accountId = ctx.oidc.session?.accountId;
          const clientId = ctx.oidc.client?.clientId;
          if (!accountId || !clientId) return undefined;
          const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
          grant.addOIDCScope(twitch ? "openid user:read:email profile" : "openid email profile");
          if (twitch) grant.addOIDCClaims(["email", "email_verified", "preferred_username"]);
          await grant.save();
          return grant;
        },
      }),
  );
  provider.on("server_error", () => {});
  const callback = provider.callback();

  server.on("request", async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    // Twitch has no `prompt`: its `force_verify=true` is a fresh login.
    if (twitch && url.pathname === "/auth" && url.searchParams.get("force_verify") === "true") {
      url.searchParams.delete("force_verify");
      url.searchParams.set("prompt", "login");
      req.url = `${url.pathname}${url.search}`;
    }
    const m = /^\/interaction\/([^/]+)(\/login|\/abort)?$/.exec(url.pathname);
    if (!m) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (!m[2]) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        res.end(
          loginPage(
            details.uid,
            String(details.params.client_id),
            users,
            twitch ? "Sign in with Twitch" : undefined,
          ),
        );
        return;
      }
      if (m[2] === "/abort") {
        await provider.interactionFinished(
          req,
          res,
          { error: "access_denied", error_description: "The user cancelled" },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const form = await readForm(req);
      const sub = form.get("sub") ?? "";
      if (!users.some((u) => u.sub === sub)) {
        res.writeHead(400).end("Unknown test user");
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub }, select_account: {} },
        { mergeWithLastSubmission: false },
      );
    } catch (e) {
      res.writeHead(400, { "content-type": "text/plain" }).end(`Sign-in failed: ${(e as Error).message}`);
    }
  });

  return {
    issuer,
    users,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
