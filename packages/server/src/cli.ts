import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { createAppApiKey, upsertApp } from "./apps/appDirectory";
import { type AppConfig, type FileConfig, readConfigFile } from "./config";
import { createService, type ServiceOptions } from "./createService";
import { Keyring, parseMasterKey } from "./crypto/keyring";
import { migrate, openDatabase } from "./db";

const USAGE = `Usage: latchkey <command> [options]

Commands:
  serve               Start the signer service
    --port <n>          Port (default 8787, or PORT)
    --host <addr>       Address to bind (default 127.0.0.1)
    --db <url|path>     SQLite file path or postgres:// URL (default .latchkey/latchkey.db)
    --config <file>     JSON config file (apps, smtp, rate limits)
    --dev               Dev mode: dev app, dev master key file, dev mailbox at /dev/mailbox, and a
                        local OpenID Connect provider as the dev app's Google and Auth0
    --dev-origin <url>  An origin the dev app allows (repeatable; LATCHKEY_DEV_ORIGINS, comma-separated).
                        Default: any local port, http://localhost:* and http://127.0.0.1:*
    --dev-oidc-port <n> Its port (default: the service's port + 1)
    --dev-email-mode <OTP|MAGIC_LINK>  How the dev app signs in by email (default OTP)
    --workers <n|auto>  Processes sharing the port and the database (default 1)
  migrate             Run database migrations (--db)
  app create          Create an app and print its API key
    --db <url|path> --id <id> --name <name> [--origin <url>]... [--email-mode OTP|MAGIC_LINK]
    [--redirect-url <url>]...
  rotate-master-key   Re-wrap data keys: LATCHKEY_MASTER_KEY (old) -> LATCHKEY_NEW_MASTER_KEY (--db)
`;

const DEFAULT_DB = ".latchkey/latchkey.db";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") {
    process.stdout.write(USAGE);
    return command ? 0 : 1;
  }
  if (command === "serve") return serve(rest);
  if (command === "migrate") {
    const { values } = parseArgs({ args: rest, options: { db: { type: "string" } } });
    const opened = openDatabase(values.db ?? process.env.LATCHKEY_DB ?? DEFAULT_DB);
    const done = await migrate(opened.db);
    await opened.close();
    process.stdout.write(done.length ? `Applied: ${done.join(", ")}\n` : "Up to date\n");
    return 0;
  }
  if (command === "app" && rest[0] === "create") return appCreate(rest.slice(1));
  if (command === "rotate-master-key") {
    const { values } = parseArgs({ args: rest, options: { db: { type: "string" } } });
    const oldKey = process.env.LATCHKEY_MASTER_KEY;
    const newKey = process.env.LATCHKEY_NEW_MASTER_KEY;
    if (!oldKey || !newKey) throw new Error("Set LATCHKEY_MASTER_KEY (current) and LATCHKEY_NEW_MASTER_KEY");
    const opened = openDatabase(values.db ?? process.env.LATCHKEY_DB ?? DEFAULT_DB);
    const n = await Keyring.rotateMasterKey(opened.db, parseMasterKey(oldKey), parseMasterKey(newKey));
    await opened.close();
    process.stdout.write(`Re-wrapped ${n} data key(s). Start the service with the new master key.\n`);
    return 0;
  }
  process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
  return 1;
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      db: { type: "string" },
      config: { type: "string" },
      dev: { type: "boolean", default: false },
      workers: { type: "string" },
      "log-level": { type: "string" },
      "dev-origin": { type: "string", multiple: true },
      "dev-redirect-url": { type: "string", multiple: true },
      "dev-oidc-port": { type: "string" },
      "dev-email-mode": { type: "string" },
    },
  });
  const file: FileConfig = values.config ? readConfigFile(values.config) : { apps: [] };
  const port = Number(values.port ?? process.env.PORT ?? file.port ?? 8787);
  const host = values.host ?? file.host ?? "127.0.0.1";
  const workersArg = values.workers ?? process.env.LATCHKEY_WORKERS ?? "1";
  const workers = workersArg === "auto" ? availableParallelism() : Number(workersArg);
  if (!Number.isInteger(workers) || workers < 1) throw new Error("--workers takes a whole number or 'auto'");
  if (workers > 1 && values.dev)
    throw new Error("--dev runs one process (its mailbox lives in memory); drop --workers");
  const options: ServiceOptions = {
    db: values.db ?? process.env.LATCHKEY_DB ?? file.db ?? DEFAULT_DB,
    dev: values.dev,
    masterKeyFile: file.masterKeyFile,
    ...((file.publicUrl ?? process.env.LATCHKEY_PUBLIC_URL)
      ? { publicUrl: file.publicUrl ?? process.env.LATCHKEY_PUBLIC_URL }
      : {}),
    smtpUrl: file.smtp?.url,
    mailFrom: file.smtp?.from ?? file.mailFrom,
    rateLimits: file.rateLimits,
    apps: file.apps,
    logLevel: values["log-level"] ?? file.logLevel ?? "info",
    trustProxy: file.trustProxy,
    devOrigins: values["dev-origin"] ?? process.env.LATCHKEY_DEV_ORIGINS?.split(",").filter(Boolean),
    devMagicLinkUrls: values["dev-redirect-url"],
    ...devEmailMode(values["dev-email-mode"]),
  };

  // Several processes share the port (Node cluster) and the database; every piece of state is in the
  // database, so they agree. The primary prepares the database once, then only supervises.
  if (workers > 1 && cluster.isPrimary) {
    const prepared = await createService(options);
    await prepared.close();
    let announced = false;
    const fork = () => {
      const worker = cluster.fork();
      worker.on("message", (m: { type?: string; url?: string; dbKind?: string }) => {
        if (m.type === "listening" && !announced) {
          announced = true;
          process.stdout.write(`Latchkey signer service on ${m.url} (${m.dbKind}, ${workers} workers)\n`);
        }
      });
    };
    for (let i = 0; i < workers; i++) fork();
    let stopping = false;
    cluster.on("exit", (w, code) => {
      if (stopping) return;
      process.stderr.write(`latchkey: worker ${w.process.pid} exited (${code}); starting another\n`);
      fork();
    });
    const stop = () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
      setTimeout(() => process.exit(0), 3000).unref();
      cluster.on("exit", () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      });
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return -1;
  }

  const service = await createService(options);
  const url = await service.listen({ port, host });
  if (cluster.isWorker) {
    process.send?.({ type: "listening", url, dbKind: service.ctx.dbKind });
  } else {
    // In dev, the address an app on localhost should use: http://localhost:PORT is on the same site as
    // http://localhost:5173, so the auth frame keeps its storage (127.0.0.1 would be another site).
    const shown = service.devApp && host === "127.0.0.1" ? url.replace("//127.0.0.1:", "//localhost:") : url;
    const lines = [`Latchkey signer service on ${shown} (${service.ctx.dbKind})`];
    if (service.devApp) {
      const { attachDevIdentityProvider } = await import("./dev/devStack");
      const oidcPort = Number(values["dev-oidc-port"] ?? (port === 0 ? 0 : port + 1));
      const idp = await attachDevIdentityProvider(service, url, { port: oidcPort });
      const close = service.close.bind(service);
      service.close = async () => {
        await idp.close();
        await close();
      };
      lines.push(`Dev app API key: ${service.devApp.apiKey}`);
      lines.push(`Dev mailbox:     ${shown}/dev/mailbox`);
      lines.push(
        `Dev app origins: ${(options.devOrigins ?? ["http://localhost:*", "http://127.0.0.1:*"]).join(", ")}`,
      );
      lines.push(
        `Dev sign-in providers: Google ${idp.issuer}, Auth0 ${idp.auth0Issuer} (test users: ${idp.users.map((u) => u.email).join(", ")})`,
      );
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return -1;
}

function devEmailMode(value: string | undefined): { devEmailMode?: "OTP" | "MAGIC_LINK" } {
  if (value === undefined) return {};
  const mode = value.toUpperCase().replace("-", "_");
  if (mode !== "OTP" && mode !== "MAGIC_LINK") throw new Error("--dev-email-mode takes OTP or MAGIC_LINK");
  return { devEmailMode: mode };
}

async function appCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      db: { type: "string" },
      id: { type: "string" },
      name: { type: "string" },
      origin: { type: "string", multiple: true },
      "email-mode": { type: "string" },
      "redirect-url": { type: "string", multiple: true },
    },
  });
  if (!values.id || !values.name) throw new Error("app create needs --id and --name");
  const { appConfigSchema } = await import("./config");
  const cfg: AppConfig = appConfigSchema.parse({
    id: values.id,
    name: values.name,
    allowedOrigins: values.origin ?? [],
    emailMode: values["email-mode"] ?? "OTP",
    magicLinkRedirectUrls: values["redirect-url"] ?? [],
  });
  const opened = openDatabase(values.db ?? process.env.LATCHKEY_DB ?? DEFAULT_DB);
  await migrate(opened.db);
  const now = Date.now();
  const app = await upsertApp({ db: opened.db, now }, cfg);
  const key = await createAppApiKey({ db: opened.db, now }, app.id);
  await opened.close();
  process.stdout.write(
    `App ${app.id} (${app.name})\nAPI key: ${key}\nThis key is shown once; it is stored hashed.\n`,
  );
  return 0;
}
