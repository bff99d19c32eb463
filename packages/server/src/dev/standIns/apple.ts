import { generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { decodeProtectedHeader, exportJWK, jwtVerify, SignJWT } from "jose";
import {
  chooserPage,
  esc,
  html,
  json,
  listen,
  readForm,
  redeemCode,
  type StandIn,
  type StandInUser,
  token,
} from "./common";

/** Apple's test people: one sharing a real address, one hiding it behind a private-relay address. */
export const APPLE_USERS: StandInUser[] = [
  { sub: "001234.ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true },
  {
    sub: "001234.relay",
    name: "Grace Hopper",
    email: "q7x2m9k4@privaterelay.appleid.com",
    emailVerified: true,
  },
  { sub: "001234.alan", name: "Alan Turing", email: "alan@example.com", emailVerified: true },
];

/** A Services ID registered at the stand-in, with the public half of the app's Sign in with Apple key. */
export interface AppleStandInClient {
  /** The Services ID: the client id. */
  clientId: string;
  teamId: string;
  keyId: string;
  /** The public key of the `.p8` the app signs its client secret with. */
  publicKey: KeyObject;
  redirectUris: string[];
}

/** Apple caps a client secret's lifetime at six months. */
const MAX_SECRET_LIFETIME_S = 15_777_000;
const CODE_TTL_MS = 5 * 60 * 1000;

/**
 * A local Sign in with Apple (for the web): discovery, JWKS (RS256), `/auth/authorize` (refuses `name` or
 * `email` scopes unless `response_mode=form_post`), a page that POSTs `code`, `state` and, on a person's
 * first authorisation of the app only, `user` (name and email as JSON) to the redirect URI, and
 * `/auth/token`, which takes the client secret only as an ES256 JWT signed with the registered key (`kid`),
 * `iss` the team, `sub` the Services ID, `aud` this issuer, unexpired and at most six months long. ID
 * tokens carry `email_verified` and `is_private_email` as strings, as Apple's do.
 */
export async function startAppleStandIn(opts: {
  clients: AppleStandInClient[];
  users?: StandInUser[];
  port?: number;
  /** The stand-in's clock (client-secret expiry, codes, ID tokens). */
  now?: () => number;
}): Promise<StandIn & { issuer: string }> {
  const users = opts.users ?? APPLE_USERS;
  const now = opts.now ?? Date.now;
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(6).toString("hex");
  const jwk = { ...(await exportJWK(publicKey)), kid, use: "sig", alg: "RS256" };
  const pending = new Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      state: string;
      nonce?: string;
      scopes: string[];
      challenge?: string;
    }
  >();
  const codes = new Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      user: StandInUser;
      nonce?: string;
      challenge?: string;
      expires: number;
    }
  >();
  /** Who has authorised which app: Apple sends the name only the first time. */
  const authorised = new Set<string>();

  /** The page Apple answers with: a form that posts itself to the app's redirect URI. */
  const formPost = (redirectUri: string, fields: Record<string, string>) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in with Apple…</title></head><body>
<form method="post" action="${esc(redirectUri)}">${Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
      .join("")}<noscript><button type="submit">Continue</button></noscript></form>
<script>document.forms[0].submit()</script></body></html>`;

  let issuer = "";
  const server = await listen(
    async (req, res, url) => {
      if (url.pathname === "/.well-known/openid-configuration") {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/auth/authorize`,
          token_endpoint: `${issuer}/auth/token`,
          jwks_uri: `${issuer}/auth/keys`,
          response_types_supported: ["code"],
          response_modes_supported: ["query", "fragment", "form_post"],
          subject_types_supported: ["pairwise"],
          id_token_signing_alg_values_supported: ["RS256"],
          scopes_supported: ["openid", "email", "name"],
          token_endpoint_auth_methods_supported: ["client_secret_post"],
          claims_supported: [
            "aud",
            "email",
            "email_verified",
            "exp",
            "iat",
            "is_private_email",
            "iss",
            "nonce",
            "nonce_supported",
            "real_user_status",
            "sub",
            "transfer_sub",
          ],
        });
      }
      if (url.pathname === "/auth/keys") return json(res, 200, { keys: [jwk] });
      if (url.pathname === "/auth/authorize" && req.method === "GET") {
        const q = url.searchParams;
        const client = opts.clients.find((c) => c.clientId === q.get("client_id"));
        const redirectUri = q.get("redirect_uri") ?? "";
        if (!client?.redirectUris.includes(redirectUri))
          return html(res, 400, "<p>invalid_client: unknown Services ID or unregistered return URL.</p>");
        const scopes = (q.get("scope") ?? "").split(" ").filter(Boolean);
        if (q.get("response_type") !== "code")
          return html(res, 400, "<p>invalid_request: response_type must be code.</p>");
        if (scopes.some((s) => s === "name" || s === "email") && q.get("response_mode") !== "form_post")
          return html(
            res,
            400,
            "<p>invalid_request: response_mode must be form_post when name or email scope is requested.</p>",
          );
        const id = token(12);
        const challenge = q.get("code_challenge") ?? undefined;
        const nonce = q.get("nonce") ?? undefined;
        pending.set(id, {
          clientId: client.clientId,
          redirectUri,
          state: q.get("state") ?? "",
          scopes,
          ...(nonce ? { nonce } : {}),
          ...(challenge ? { challenge } : {}),
        });
        return html(
          res,
          200,
          chooserPage({
            provider: "Apple",
            accent: "#000000",
            clientId: client.clientId,
            action: "/auth/authorize",
            hidden: { request: id },
            users,
          }),
        );
      }
      if (url.pathname === "/auth/authorize" && req.method === "POST") {
        const form = await readForm(req);
        const p = pending.get(form.get("request") ?? "");
        if (!p) return html(res, 400, "<p>This sign-in request is unknown or was already answered.</p>");
        pending.delete(form.get("request") ?? "");
        if (form.get("cancel"))
          return html(
            res,
            200,
            formPost(p.redirectUri, { error: "user_cancelled_authorize", state: p.state }),
          );
        const user = users.find((u) => u.sub === form.get("sub"));
        if (!user) return html(res, 400, "<p>Unknown test user.</p>");
        const code = `c${token()}`;
        codes.set(code, { ...p, user, expires: now() + CODE_TTL_MS });
        const fields: Record<string, string> = { state: p.state, code };
        const first = !authorised.has(`${p.clientId}/${user.sub}`);
        authorised.add(`${p.clientId}/${user.sub}`);
        if (first && (p.scopes.includes("name") || p.scopes.includes("email"))) {
          const [firstName, ...rest] = user.name.split(" ");
          fields.user = JSON.stringify({
            ...(p.scopes.includes("name") ? { name: { firstName, lastName: rest.join(" ") } } : {}),
            ...(p.scopes.includes("email") && user.email ? { email: user.email } : {}),
          });
        }
        return html(res, 200, formPost(p.redirectUri, fields));
      }
      if (url.pathname === "/auth/token" && req.method === "POST") {
        const form = await readForm(req);
        const client = opts.clients.find((c) => c.clientId === form.get("client_id"));
        const secret = form.get("client_secret") ?? "";
        if (!client || !(await clientSecretHolds(client, secret)))
          return json(res, 400, { error: "invalid_client" });
        if (form.get("grant_type") !== "authorization_code")
          return json(res, 400, { error: "unsupported_grant_type" });
        const code = redeemCode(codes, form, client.clientId, now());
        if (!code) return json(res, 400, { error: "invalid_grant" });
        const iat = Math.floor(now() / 1000);
        const u = code.user;
        const idToken = await new SignJWT({
          ...(code.nonce ? { nonce: code.nonce, nonce_supported: true } : {}),
          ...(u.email
            ? {
                email: u.email,
                email_verified: String(u.emailVerified),
                is_private_email: String(u.email.endsWith("@privaterelay.appleid.com")),
              }
            : {}),
          auth_time: iat,
          real_user_status: 2,
        })
          .setProtectedHeader({ alg: "RS256", kid })
          .setIssuer(issuer)
          .setAudience(client.clientId)
          .setSubject(u.sub)
          .setIssuedAt(iat)
          .setExpirationTime(iat + 600)
          .sign(privateKey);
        return json(res, 200, {
          access_token: `a${token()}`,
          token_type: "Bearer",
          expires_in: 3600,
          refresh_token: `r${token()}`,
          id_token: idToken,
        });
      }
      json(res, 404, { error: "not_found" });
    },
    opts.port !== undefined ? { port: opts.port } : {},
  );
  issuer = server.url;

  async function clientSecretHolds(client: AppleStandInClient, secret: string): Promise<boolean> {
    try {
      if (decodeProtectedHeader(secret).kid !== client.keyId) return false;
      const { payload } = await jwtVerify(secret, client.publicKey, {
        algorithms: ["ES256"],
        issuer: client.teamId,
        subject: client.clientId,
        audience: issuer,
        currentDate: new Date(now()),
        requiredClaims: ["iat", "exp"],
      });
      return (payload.exp ?? 0) - (payload.iat ?? 0) <= MAX_SECRET_LIFETIME_S;
    } catch {
      return false;
    }
  }

  return { url: issuer, issuer, users, close: server.close };
}
