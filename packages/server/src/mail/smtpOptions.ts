import { hostname } from "node:os";
import type { ConnectionOptions } from "node:tls";

export interface SmtpOptions {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://, usually port 465). */
  secure: boolean;
  /** Send nothing over an unencrypted connection: the server must offer STARTTLS. */
  requireTLS: boolean;
  /** Never upgrade with STARTTLS, even when the server offers it. */
  ignoreTLS: boolean;
  auth?: { user: string; pass: string };
  /** The name this client gives in EHLO. */
  name: string;
  /** Passed to `tls.connect` (for example `rejectUnauthorized`, `servername`, `ca`). */
  tls: ConnectionOptions;
  /** Connections open at once; each sends one message after another. */
  maxConnections: number;
  /** How long to wait for a connection or a reply, in ms. */
  timeoutMs: number;
  /** An idle connection says QUIT after this many ms. */
  idleMs: number;
}

/** A failed send. `permanent` (a 5xx reply, a refused login, a bad address): retrying will not help. */
export class SmtpError extends Error {
  override readonly name = "SmtpError";
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly replyCode?: number,
  ) {
    super(message);
  }
}

const BOOLEAN_OPTIONS = new Set(["secure", "requireTLS", "ignoreTLS"]);
// nodemailer's pool settings, which earlier configurations may carry: they have no meaning here.
const IGNORED_OPTIONS = new Set(["pool", "maxMessages", "rateDelta", "rateLimit"]);

/**
 * `smtp://user:pass@host:port` (STARTTLS when offered; port 587 by default) or `smtps://…` (implicit
 * TLS; port 465). Options in the query: `secure`, `requireTLS`, `ignoreTLS`, `name`, `maxConnections`,
 * `tls.rejectUnauthorized`, `tls.servername`. An unknown option is an error, so a typo is not ignored.
 */
export function parseSmtpUrl(url: string): SmtpOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("The SMTP URL is not a URL: expected smtp://user:pass@host:port");
  }
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:")
    throw new Error(`The SMTP URL must start with smtp:// or smtps:// (not ${u.protocol}//)`);
  if (!u.hostname) throw new Error("The SMTP URL names no host");
  const opts: SmtpOptions = {
    host: u.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: 0,
    secure: u.protocol === "smtps:",
    requireTLS: false,
    ignoreTLS: false,
    name: hostname() || "localhost",
    tls: {},
    maxConnections: 3,
    timeoutMs: 30_000,
    idleMs: 30_000,
  };
  if (u.username) opts.auth = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
  for (const [key, value] of u.searchParams) {
    if (BOOLEAN_OPTIONS.has(key)) {
      if (value !== "true" && value !== "false")
        throw new Error(`The SMTP URL option ${key} must be true or false`);
      opts[key as "secure" | "requireTLS" | "ignoreTLS"] = value === "true";
    } else if (key === "name") opts.name = value;
    else if (key === "maxConnections") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 100)
        throw new Error("The SMTP URL option maxConnections must be a whole number from 1 to 100");
      opts.maxConnections = n;
    } else if (key === "tls.rejectUnauthorized") {
      if (value !== "true" && value !== "false")
        throw new Error("The SMTP URL option tls.rejectUnauthorized must be true or false");
      opts.tls.rejectUnauthorized = value === "true";
    } else if (key === "tls.servername") opts.tls.servername = value;
    else if (!IGNORED_OPTIONS.has(key)) throw new Error(`Unknown SMTP URL option: ${key}`);
  }
  opts.port = u.port ? Number(u.port) : opts.secure ? 465 : 587;
  return opts;
}
