import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import { startTestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import type { Service } from "../src/createService";
import { migrate, openDatabase } from "../src/db/index";

export const PG_ADMIN_URL = process.env.LATCHKEY_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

export interface CaughtMail {
  to: string;
  raw: string;
}

/** A real SMTP server on a free loopback port that keeps what it receives. */
export async function startSmtp() {
  const mails: CaughtMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        for (const rcpt of session.envelope.rcptTo)
          mails.push({ to: rcpt.address, raw: Buffer.concat(chunks).toString("utf8") });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  // A sender killed mid-mail (instances.test.ts kills one with SIGKILL) resets its connection: that is the
  // sender's failure, not the catcher's, so it must not surface as an uncaught error in the test run.
  server.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "ECONNRESET" && err.code !== "EPIPE") console.error("test SMTP server:", err);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    mails,
    /** Resolves with the newest mail to `to` after `since` mails had arrived. */
    async waitFor(to: string, since = 0, timeoutMs = 10_000): Promise<CaughtMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails
          .slice(since)
          .filter((m) => m.to === to)
          .at(-1);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type Smtp = Awaited<ReturnType<typeof startSmtp>>;

/** Decodes a raw MIME message enough to read its parts (quoted-printable and UTF-8 aware). */
export function mailText(raw: string): string {
  const unfolded = raw.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < unfolded.length; i++) {
    const hex = unfolded[i] === "=" ? /^[0-9A-F]{2}/.exec(unfolded.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(unfolded[i] as string, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The decoded Subject header (RFC 2047 encoded words, B or Q). */
export function mailSubject(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? "";
  return header
    .replace(/\?=\r?\n[ \t]+=\?/g, "?==?")
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : mailText(text.replace(/_/g, " ")),
    )
    .replace(/\r?\n[ \t]+/g, " ");
}

export function codeFrom(raw: string): string {
  const m = /sign-in code is (\d{6})/.exec(mailText(raw));
  if (!m?.[1]) throw new Error("no code in mail");
  return m[1];
}

export function linkFrom(raw: string): URL {
  const m = /(https?:\/\/[^\s"<>]+bundle=[^\s"<>]+)/.exec(mailText(raw));
  if (!m?.[1]) throw new Error("no link in mail");
  return new URL(m[1].replace(/&amp;/g, "&"));
}

function pgUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Any number: the advisory lock under which the first harness of a run makes the template. */
const TEMPLATE_LOCK = 0x6c6b7470;

/**
 * The run's migrated template (LATCHKEY_TEST_PG_TEMPLATE, named by test-support/pgTemplate.ts): made by the
 * first caller (every migration on an empty database, then renamed into place, so a copy never sees it
 * half made); undefined outside such a run.
 */
async function migratedTemplate(admin: pg.Client): Promise<string | undefined> {
  const template = process.env.LATCHKEY_TEST_PG_TEMPLATE;
  if (!template || !/^latchkey_tpl_\d+$/.test(template)) return undefined;
  const exists = async () =>
    (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template])).rowCount === 1;
  if (await exists()) return template;
  await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
  try {
    if (await exists()) return template;
    const wip = `${template}_wip`;
    await admin.query(`DROP DATABASE IF EXISTS ${wip} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${wip}`);
    const opened = openDatabase(pgUrl(wip), { poolSize: 1 });
    try {
      await migrate(opened.db);
    } finally {
      await opened.close();
    }
    await admin.query(`ALTER DATABASE ${wip} RENAME TO ${template}`);
    return template;
  } finally {
    await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
  }
}

/**
 * A fresh database per test file: a SQLite file in a temp dir, or a new PostgreSQL database. `migrated`
 * (PostgreSQL, in a vitest run): a copy of the run's migrated template, so the service's migrations find
 * nothing to do (the scenario harnesses; a test of migrating itself takes an empty one).
 */
export async function freshDatabase(
  kind: "sqlite" | "postgres",
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-test-"));
    return { url: join(dir, "test.db"), drop: async () => {} };
  }
  const name = `latchkey_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const template = options.migrated ? await migratedTemplate(admin) : undefined;
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      // A closed pool's connections may still be saying goodbye: let them go first (up to 2 s). FORCE
      // kills the ones that stay, and would kill a closing one mid-goodbye, which its client reports as an
      // uncaught error.
      for (let i = 0; i < 40; i++) {
        const open = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [
          name,
        ]);
        if (open.rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The databases of a scenario file whose storage is the query builder's plain reads and writes of tables
 * that files on both databases also use (users, sessions, codes, activities, rate limits): SQLite only,
 * where a PostgreSQL run repeated the same Kysely queries the other files already run there. Files where
 * the SQL or its concurrency differs (raw SQL, locks, conflicts, two processes, migrations, retention,
 * import, backups, webhooks, grants, approvals, sponsorship, the custody attack) and files whose tables no
 * other file writes on PostgreSQL keep `describe.each(["sqlite", "postgres"])`.
 * bench/results/test-suite.json (session16.postgresMatrix) lists which files run once and why.
 */
export const SCENARIO_DATABASES = ["sqlite"] as const;

export const TEST_APP = {
  id: "test-app",
  name: "Test App",
  apiKeys: ["lk_test_key_0123456789abcdef"],
  allowedOrigins: ["http://app.test"],
  emailMode: "OTP",
  magicLinkRedirectUrls: ["http://app.test/welcome"],
} satisfies AppConfig;
export const LINK_APP = {
  id: "link-app",
  name: "Link App",
  apiKeys: ["lk_link_key_0123456789abcdef"],
  allowedOrigins: ["http://link.test"],
  emailMode: "MAGIC_LINK",
  magicLinkRedirectUrls: ["http://link.test/auth/callback"],
} satisfies AppConfig;

export interface Harness {
  service: Service;
  url: string;
  smtp: Smtp;
  clock: { now: number; advance(ms: number): void };
  close(): Promise<void>;
}

/** Starts the real service on a free port with its own database and a real SMTP server. */
export async function startHarness(
  kind: "sqlite" | "postgres",
  extra: {
    rateLimits?: Record<string, number>;
    apps?: AppConfig[];
    walletReserve?: number;
    /** A known master key (the attack tests hold it as the operator does); else a fresh random one. */
    masterKey?: Buffer;
    /**
     * The service's environment over this process's, with no master key of the harness's own: e.g. an
     * HSM's (helpers/softHsm.ts).
     */
    env?: Record<string, string>;
    /** Where the service's logs go (at `logLevel`, default silent). */
    logStream?: NodeJS.WritableStream;
    logLevel?: "silent" | "info" | "debug" | "trace";
    /** EVM chains the service reads (sponsorship, SIWE, a signature's simulation). */
    chains?: { chainId: number; rpcUrl: string }[];
  } = {},
): Promise<Harness & { dbUrl: string }> {
  const smtp = await startSmtp();
  const database = await freshDatabase(kind, { migrated: true });
  const clock = {
    offset: 0,
    get now() {
      return Date.now() + this.offset;
    },
    advance(ms: number) {
      this.offset += ms;
    },
  };
  const { service, url, close } = await startTestService({
    db: database.url,
    smtpUrl: smtp.url,
    apps: extra.apps ?? [TEST_APP, LINK_APP],
    ...(extra.rateLimits ? { rateLimits: extra.rateLimits } : {}),
    ...(extra.walletReserve !== undefined ? { walletReserve: extra.walletReserve } : {}),
    logLevel: extra.logLevel ?? "silent",
    ...(extra.masterKey ? { masterKey: extra.masterKey } : {}),
    ...(extra.env ? { env: extra.env, masterKey: undefined } : {}),
    ...(extra.logStream ? { logStream: extra.logStream } : {}),
    ...(extra.chains ? { chains: extra.chains } : {}),
    now: () => clock.now,
  });
  return {
    service,
    url,
    dbUrl: database.url,
    smtp,
    clock,
    async close() {
      await close();
      await smtp.close();
      await database.drop();
    },
  };
}

export async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

/** init-otp → verify-otp with the code mailed to `contact`: a verification token (`headers` name the app). */
export async function verificationToken(
  h: Pick<Harness, "url" | "smtp">,
  headers: Record<string, string>,
  contact: string,
): Promise<string> {
  const before = h.smtp.mails.length;
  const init = await post(h.url, "/signer/v1/init-otp", { contact, otpType: "OTP_TYPE_EMAIL" }, headers);
  const code = /Subject: (\d{6}) is your /.exec((await h.smtp.waitFor(contact, before)).raw)?.[1];
  const verified = await post(
    h.url,
    "/signer/v1/verify-otp",
    { otpId: init.json.otpId, otpCode: code },
    headers,
  );
  if (verified.status !== 200) throw new Error(`verify-otp answered ${verified.status} for ${contact}`);
  return verified.json.verificationToken as string;
}

/** An in-memory target key, as the memory key holder of a Node client has. */
export function targetKey() {
  const privateKey = generateP256PrivateKey();
  const publicKey = toHex(p256PublicKeyFromPrivate(privateKey, false));
  return {
    privateKey,
    publicKey,
    open: (bundle: string) =>
      openCredentialBundle({ bundle, targetPrivateKey: privateKey, targetPublicKey: publicKey }),
  };
}

export function stamped(path: string, body: object, sessionKey: Uint8Array) {
  const text = JSON.stringify(body);
  return {
    stampedRequest: {
      body: text,
      stamp: stampWithPrivateKey(text, sessionKey),
      url: `https://signer.test${path}`,
    },
  };
}

export function signBody(
  orgId: string,
  signWith: string,
  payload: string,
  hashFunction: string,
  ts = Date.now(),
) {
  return {
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    timestampMs: String(ts),
    organizationId: orgId,
    parameters: { signWith, payload, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction },
  };
}

export interface EmailUser {
  orgId: string;
  userId: string;
  address: string;
  solanaAddress: string;
  /** The session private key opened from the credential bundle. */
  sessionKey: Uint8Array;
}

/** Signs a new user up by email code, as a Node client with an in-memory target key would. */
export async function signUpByEmail(
  h: Harness,
  email: string,
  headers: Record<string, string>,
): Promise<EmailUser> {
  const t = targetKey();
  const before = h.smtp.mails.length;
  const s = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, headers);
  if (s.status !== 200) throw new Error(`signup failed: ${JSON.stringify(s.json)}`);
  const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
  const o = await post(
    h.url,
    "/signer/v1/otp",
    { orgId: s.json.orgId, otpId: s.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
    headers,
  );
  return {
    orgId: s.json.orgId as string,
    userId: s.json.userId as string,
    address: s.json.address as string,
    solanaAddress: s.json.solanaAddress as string,
    sessionKey: await t.open(o.json.credentialBundle as string),
  };
}

/** A browser's cookie jar, enough to walk a provider's login pages with fetch. */
export class Browser {
  #cookies = new Map<string, string>();
  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = (pair ?? "").indexOf("=");
      if (i > 0) this.#cookies.set((pair ?? "").slice(0, i), (pair ?? "").slice(i + 1));
    }
    return res;
  }
  /** Follows redirects until one leaves `origin` (the provider), returning that location. */
  async followUntilLeaving(start: string, origin: string, init?: RequestInit): Promise<string> {
    let res = await this.get(start, init);
    let url = start;
    for (let hops = 0; hops < 10; hops++) {
      const loc = res.headers.get("location");
      if (!loc) return url;
      url = new URL(loc, url).toString();
      if (!url.startsWith(origin)) return url;
      res = await this.get(url);
    }
    throw new Error("too many redirects");
  }
}

const BIN = resolve(__dirname, "../bin/latchkey.js");

/** A `latchkey serve` child process. */
export interface Instance {
  url: string;
  child: ChildProcess;
}

/** `latchkey serve` in its own process on a free port: resolves once it prints where it listens. */
export function serve(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Instance> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--log-level", "warn", ...args], {
    cwd,
    env,
  });
  return new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`no start in 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = /signer service on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        res({ url, child });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`exited ${code}:\n${out}`));
    });
  });
}

export function stop(child: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.once("exit", () => r());
    child.kill(signal);
  });
}

/**
 * Runs an ES module `script` in a fresh node (with tsx, from the repository's root) under `env` added to
 * this process's, and parses the last line it prints as JSON: for choices made once per process, such as
 * which native implementation loads.
 */
export function runScriptInFreshNode<T>(script: string, env: Record<string, string>): T {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as T;
}
