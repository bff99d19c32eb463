import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the local stand-ins share: an HTTP server on a free port, the account chooser page the tests and
 * the demo click through, form reading and PKCE. Dev and tests only; production talks to the real
 * providers.
 */

/** A person at a stand-in: its id at that provider, a display name, an email (or none). */
export interface StandInUser {
  /** The provider's id of the person (`sub`, or Facebook/GitHub/Discord `id`). */
  sub: string;
  name: string;
  email: string | null;
  emailVerified: boolean;
}

/** A registered app (client) at a stand-in. */
export interface StandInClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** A running stand-in. */
export interface StandIn {
  /** Its base URL (an OIDC issuer for Apple and Twitch). */
  url: string;
  users: StandInUser[];
  close(): Promise<void>;
}

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
export const token = (bytes = 24) => randomBytes(bytes).toString("base64url");

/** Listens on `port` (0: a free one) and gives the base URL and a close that ends open connections. */
export async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => Promise<unknown>,
  opts: { port?: number; host?: string } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const host = opts.host ?? "127.0.0.1";
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(opts.port ?? 0, host, r));
  const url = `http://${host === "0.0.0.0" ? "localhost" : host}:${(server.address() as AddressInfo).port}`;
  server.on("request", async (req, res) => {
    try {
      await handler(req, res, new URL(req.url ?? "/", url));
    } catch (e) {
      if (!res.headersSent)
        json(res, 500, { error: "server_error", error_description: (e as Error).message });
    }
  });
  return {
    url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) break;
  }
  return new URLSearchParams(body);
}

/** Answers JSON; true, so an API handler can `return json(…)` for "answered". */
export function json(res: http.ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
  return true;
}

export function html(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(body);
}

/** PKCE S256 (RFC 7636): the verifier hashes to the challenge. No challenge: nothing to check. */
export function pkceHolds(challenge: string | undefined, verifier: string | null): boolean {
  if (!challenge) return true;
  if (!verifier) return false;
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}

/** What every stand-in keeps about an authorization code it issued. */
export interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  expires: number;
}

/**
 * Takes the form's one-time `code` (RFC 6749 §4.1.3): it is spent whatever happens next, and answers
 * only when it is unexpired, was issued to `clientId` for the form's `redirect_uri`, and the form's
 * `code_verifier` meets its PKCE challenge.
 */
export function redeemCode<C extends IssuedCode>(
  codes: Map<string, C>,
  form: URLSearchParams,
  clientId: string,
  now: number,
): C | undefined {
  const code = codes.get(form.get("code") ?? "");
  codes.delete(form.get("code") ?? "");
  if (
    !code ||
    code.expires <= now ||
    code.clientId !== clientId ||
    code.redirectUri !== form.get("redirect_uri") ||
    !pkceHolds(code.challenge, form.get("code_verifier"))
  )
    return undefined;
  return code;
}

/**
 * The account chooser: one button per test user (`button.user[data-sub=…]`, as the dev OIDC provider
 * has), a note when the request asks for something (re-authentication), and Cancel.
 */
export function chooserPage(opts: {
  provider: string;
  clientId: string;
  action: string;
  hidden: Record<string, string>;
  users: StandInUser[];
  note?: string | undefined;
  accent?: string;
}): string {
  const hidden = Object.entries(opts.hidden)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join("");
  const buttons = opts.users
    .map(
      (u) => `<button type="submit" name="sub" value="${esc(u.sub)}" class="user" data-sub="${esc(u.sub)}">
  <span class="avatar">${esc(u.name.slice(0, 1))}</span><span><strong>${esc(u.name)}</strong><small>${u.email ? esc(u.email) : "no email"}${u.email && !u.emailVerified ? " (unverified)" : ""}</small></span></button>`,
    )
    .join("\n");
  const accent = opts.accent ?? "#363ff9";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(opts.provider)}: choose an account</title>
<style>
body{margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f4f7;color:#1f2330;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border:1px solid #e6e6ec;border-radius:16px;padding:28px;width:min(360px,90vw)}
h1{font-size:20px;margin:0 0 4px}p{color:#6b7085;margin:0 0 20px;font-size:14px}
.note{color:#1f2330;background:#fff6db;border-radius:8px;padding:8px 10px}
.user{display:flex;gap:12px;align-items:center;width:100%;text-align:left;background:none;border:1px solid #e6e6ec;border-radius:12px;padding:10px 12px;margin:0 0 8px;cursor:pointer;font:inherit}
.user:hover,.user:focus-visible{border-color:${accent};outline:none}
.user small{display:block;color:#6b7085}.avatar{width:32px;height:32px;border-radius:50%;background:${accent};color:#fff;display:grid;place-items:center;font-weight:600}
.cancel{background:none;border:none;color:#6b7085;cursor:pointer;margin-top:8px;font:inherit}
</style></head><body><main>
<h1>Sign in with ${esc(opts.provider)}</h1><p>to continue to ${esc(opts.clientId)} · Latchkey's local ${esc(opts.provider)} stand-in</p>
${opts.note ? `<p class="note" role="status">${esc(opts.note)}</p>` : ""}
<form method="post" action="${esc(opts.action)}">${hidden}${buttons}</form>
<form method="post" action="${esc(opts.action)}">${hidden}<button class="cancel" type="submit" name="cancel" value="1">Cancel</button></form>
</main></body></html>`;
}

/** A redirect back to the app with `params` in the query (after a POST: 303). */
export function redirectBack(
  res: http.ServerResponse,
  redirectUri: string,
  params: Record<string, string>,
): void {
  const to = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
  res.writeHead(303, { location: to.toString(), "cache-control": "no-store" });
  res.end();
}
