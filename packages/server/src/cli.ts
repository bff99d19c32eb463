import cluster from "node:cluster";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { createAppApiKey, upsertApp } from "./apps/appDirectory";
import { type AppConfig, type FileConfig, readConfigFile } from "./config";
import type { ServiceOptions } from "./createService";
import { Keyring } from "./crypto/keyring";
import { HSM_HELP, KEY_ENVIRONMENT, ROTATE_HELP } from "./crypto/keyWrap/commands";
import { KeyWrapperError } from "./crypto/keyWrap/keyWrapper";
import { loadKeyWrapper } from "./crypto/keyWrap/loadKeyWrapper";
import { seedBackend, seedFallbackReason } from "./crypto/pbkdf2";
import { secp256k1Impl } from "./crypto/secp256k1";
import { isPostgresUrl, migrate, openDatabase } from "./db";
import {
  createAdminKeyFile,
  decideThroughService,
  listHeldActivities,
  readAdminKey,
  readAdminKeyFile,
} from "./keyManagement/policies/adminCli";
import { describeSigningPolicy } from "./keyManagement/policies/describePolicy";
import { type SigningPolicyConfig, signingPolicySchema } from "./keyManagement/policies/policySchema";
import { ServiceKeys } from "./serviceKeys/serviceKeys";

// The service (Fastify, every route, viem) loads only for commands that start it: `--help` and the small
// commands answer in a fraction of the time. Dev mode's comes from the dev entry, loaded only for --dev.
const loadService = async (dev: boolean) => {
  if (!dev) return (await import("./createService")).createService;
  const devEntry = await import("./dev/index");
  await devEntry.checkDevDependencies();
  return devEntry.createService;
};

const ENVIRONMENT = `Environment:
  LATCHKEY_MASTER_KEY       The master key (64 hex characters or base64 of 32 bytes) that wraps every
                            data key. Required outside --dev; keep it in your secret store.
  LATCHKEY_MASTER_KEY_FILE  Or a file holding it (mode 0600). --dev makes .latchkey/master.key.
${KEY_ENVIRONMENT}  LATCHKEY_DB               SQLite path or postgres:// URL (as --db)
  LATCHKEY_SMTP_URL         smtp(s)://user:pass@host:port for mail (dev: the mailbox page instead)
  LATCHKEY_MAIL_FROM        The From address of mail
  LATCHKEY_PUBLIC_URL       The service's public URL (OAuth callbacks), e.g. https://auth.example.com
  LATCHKEY_WORKERS          As --workers
  LATCHKEY_DEV_ORIGINS      As --dev-origin, comma-separated
  LATCHKEY_DEV_API_KEY      The dev app's API key (--dev; default: made once, in .latchkey/dev-api-key)
  LATCHKEY_WALLET_RESERVE   Wallets to keep derived ahead of sign-ups for bursts (default 0; the config
                            file's walletReserve); refilled while the service is mostly idle
  LATCHKEY_SECP256K1        "noble" signs with @noble/curves even where the native libsecp256k1 addon
                            (the optional secp256k1 package) loads; /healthz says which one signs
  LATCHKEY_PBKDF2           "node" computes wallet seeds with node:crypto even where the native PBKDF2
                            addon (built by the install script) loads; /healthz says which one runs
  PORT                      As --port
`;

/** Help for each command: `latchkey <command> --help`. */
const HELP: Record<string, string> = {
  serve: `Usage: latchkey serve [options]

Start the signer service.

Options:
  --port <n>            Port (default 8787, or PORT; 0 picks a free one)
  --host <addr>         Address to bind (default 127.0.0.1; 0.0.0.0 behind a proxy in a container)
  --db <url|path>       SQLite file path or postgres:// URL (default ${".latchkey/latchkey.db"})
  --config <file>       JSON config file: apps (and their sponsorship policies), chains, solana, smtp,
                        rate limits, trustProxy, publicUrl (see the README)
  --workers <n|auto>    Processes sharing the port and the database (default 1)
  --log-level <level>   fatal, error, warn, info (default), debug, trace or silent
  --dev                 Dev mode: a dev app (any local port may use it), a dev master key file, the dev
                        mailbox at /dev/mailbox instead of SMTP, and a local OpenID Connect provider as
                        the dev app's Google and Auth0 (needs oidc-provider: npm i -D oidc-provider)
  --dev-origin <url>    An origin the dev app allows (repeatable). Default: any local port,
                        http://localhost:* and http://127.0.0.1:*
  --dev-redirect-url <url>  Where the dev app's magic links may lead (repeatable; default: any local port)
  --dev-oidc-port <n>   The local OpenID Connect provider's port (default: the service's port + 1)
  --dev-email-mode <OTP|MAGIC_LINK>  How the dev app signs in by email (default OTP)
  -h, --help            This help

${ENVIRONMENT}`,
  migrate: `Usage: latchkey migrate [--db <url|path>]

Run the database migrations (serve also runs them at start).

${ENVIRONMENT}`,
  "app create": `Usage: latchkey app create --id <id> --name <name> [options]

Create an app (or update it) and print a new API key; the key is shown once and stored hashed.

Options:
  --db <url|path>          The database (as serve)
  --id <id>                The app's id: letters, digits, - and _ (up to 64)
  --name <name>            Its name, shown in mail
  --origin <url>           An origin allowed to use the app (repeatable)
  --email-mode <OTP|MAGIC_LINK>  How users sign in by email (default OTP)
  --redirect-url <url>     Where magic links may lead (repeatable)
  -h, --help               This help

Apps with social providers, passkey settings or sponsorship are written in the --config file of serve.
`,
  "rotate-master-key": ROTATE_HELP,
  hsm: HSM_HELP,
  backup: `Usage: latchkey backup --db <url|path> --out <file>

Copy the database while the service runs. SQLite: the online backup API writes a consistent copy (a
SQLite file, which is itself a database: serve --db <file> starts on it). PostgreSQL: runs pg_dump
--format=custom (pg_dump of the server's version must be on PATH); restore with
pg_restore --no-owner --dbname <empty database url> <file>. Keep the master key apart from backups.

Options:
  --db <url|path>    The live database (as serve)
  --out <file>       Where the copy goes
  -h, --help         This help
`,
  "verify-backup": `Usage: latchkey verify-backup --db <url|path>

Check a backup (a SQLite copy, or a PostgreSQL database restored from a dump) with the master key
(LATCHKEY_MASTER_KEY or LATCHKEY_MASTER_KEY_FILE): every sealed secret opens (wallet mnemonics and keys,
TOTP secrets, service keys, OAuth client secrets), every wallet re-derives its stored EVM and Solana
accounts, and every user has a whole wallet. Prints counts and failures by row id, never a secret; exits
non-zero on any failure or a wrong master key. It only reads.

Options:
  --db <url|path>    The backup
  -h, --help         This help
`,
  "paymaster-signer": `Usage: latchkey paymaster-signer [options]

Print the address of the key the service signs sponsored user operations with (ERC-7677 paymaster at
/rpc/v1). Add it to the verifying paymaster's signers (SingletonPaymasterV8: addSigner) on every chain
in the config's "chains". The key is made on first use (here or by serve), sealed at rest under the
master key; it is never printed.

Options:
  --db <url|path>    The database (as serve)
  --config <file>    Take the database and master key file from this config file
  --dev              Use the dev master key file (.latchkey/master.key), as serve --dev does
  -h, --help         This help

${ENVIRONMENT}`,
  "solana-fee-payer": `Usage: latchkey solana-fee-payer [options]

Print the Solana address (base58) of the key that pays the fees of sponsored Solana transactions
(latchkey_requestFeePayer at /rpc/v1, the apps' "solanaPolicies"). Fund it with SOL on the cluster your
users send to; it pays fees only. The key is made on first use (here or by serve), sealed at rest under
the master key; it is never printed.

Options:
  --db <url|path>    The database (as serve)
  --config <file>    Take the database and master key file from this config file
  --dev              Use the dev master key file (.latchkey/master.key), as serve --dev does
  -h, --help         This help

${ENVIRONMENT}`,
  activity: `Usage: latchkey activity list --app <id> [--db <url|path>]
       latchkey activity approve <activityId> --org <organizationId> --url <serviceUrl> [--admin-key-file <file>]
       latchkey activity reject <activityId> --org <organizationId> --url <serviceUrl> [--admin-key-file <file>]

Signatures an app's signing policy holds for approval ("needs_approval" rules, or rawPayloads:
"needs_approval") wait in ACTIVITY_STATUS_CONSENSUS_NEEDED until one of the app's admin keys
(signingPolicy.adminKeys in the --config file of serve) approves or rejects them.

  list      The app's waiting activities (from the database), with the app's organization id and the
            command that decides each
  approve   Sign it: the service signs and completes the activity (once, whoever approves first)
  reject    Refuse it: the activity ends REJECTED, never signed

Options:
  --app <id>                The app (list)
  --db <url|path>           The database (as serve; list)
  --org <organizationId>    The app's organization id, as list prints it (approve, reject)
  --url <serviceUrl>        The service, e.g. https://auth.example.com (approve, reject)
  --admin-key-file <file>   The admin key's private key, 64 hex digits (from latchkey admin-key create);
                            or LATCHKEY_ADMIN_KEY
  -h, --help                This help

Environment:
  LATCHKEY_ADMIN_KEY        An admin key's private key (64 hex digits), instead of --admin-key-file
  LATCHKEY_DB               As --db
`,
  "admin-key": `Usage: latchkey admin-key create --out <file>

Make a P-256 admin key for an app's signing policy: the private key is written to <file> (mode 0600,
never overwritten) and the public key is printed. Put the public key in the app's
signingPolicy.adminKeys ({"name": "ops", "publicKey": "02…"}); keep the file where approvals are made
(latchkey activity approve, or the app's backend).

Options:
  --out <file>   Where the private key goes
  -h, --help     This help
`,
};

const USAGE = `Usage: latchkey <command> [options]

Commands:
  serve               Start the signer service
  migrate             Run database migrations
  app create          Create an app and print its API key
  rotate-master-key   Re-wrap data keys under a new master key (or move them into or out of an HSM)
  hsm init            Create the master key in an HSM token (PKCS#11)
  paymaster-signer    Print the paymaster signer's address (to register on-chain)
  solana-fee-payer    Print the Solana fee payer's address (to fund with SOL)
  activity            List, approve or reject signatures an app's signing policy holds
  admin-key create    Make an admin key for an app's signing policy
  backup              Copy the database while the service runs
  verify-backup       Check that a backup opens with the master key and its wallets re-derive

Run \`latchkey <command> --help\` for a command's options and environment.
`;

const DEFAULT_DB = ".latchkey/latchkey.db";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" ? rest.join(" ") : "";
    process.stdout.write(HELP[topic] ?? USAGE);
    return command ? 0 : 1;
  }
  const name = command === "app" && rest[0] === "create" ? "app create" : command;
  if (command === "hsm" && (rest.length === 0 || rest.includes("--help") || rest.includes("-h"))) {
    process.stdout.write(HSM_HELP);
    return rest.length === 0 ? 1 : 0;
  }
  if (HELP[name] && (rest.includes("--help") || rest.includes("-h"))) {
    process.stdout.write(HELP[name]);
    return 0;
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
  if (command === "rotate-master-key" || command === "hsm") {
    const { hsmCommand, rotateMasterKeyCommand } = await import("./crypto/keyWrap/commands");
    return command === "hsm"
      ? hsmCommand(rest, process.env)
      : rotateMasterKeyCommand(rest, process.env, DEFAULT_DB);
  }
  if (command === "activity") return activityCommand(rest);
  if (command === "admin-key" && rest[0] === "create") {
    const { values } = parseArgs({ args: rest.slice(1), options: { out: { type: "string" } } });
    if (!values.out) throw new Error("admin-key create needs --out <file>");
    const publicKey = createAdminKeyFile(values.out);
    process.stdout.write(
      `Admin key written to ${values.out} (keep it secret).\nPublic key (for signingPolicy.adminKeys): ${publicKey}\n`,
    );
    return 0;
  }
  if (command === "backup") {
    const { values } = parseArgs({
      args: rest,
      options: { db: { type: "string" }, out: { type: "string" } },
    });
    if (!values.out) throw new Error("backup needs --out <file>");
    const db = values.db ?? process.env.LATCHKEY_DB ?? DEFAULT_DB;
    const { backupDatabase } = await import("./backup/backupDatabase");
    const { kind } = await backupDatabase({ db, out: values.out });
    process.stdout.write(
      `Backup written to ${values.out} (${kind === "sqlite" ? "a SQLite database" : "pg_dump custom format"})\n`,
    );
    return 0;
  }
  if (command === "verify-backup") return verifyBackupCommand(rest);
  if (command === "paymaster-signer") return printServiceKey(rest, (keys) => keys.address("paymaster"));
  if (command === "solana-fee-payer")
    return printServiceKey(rest, (keys) => keys.solanaAddress("solanaFeePayer"));
  process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
  return 1;
}

async function verifyBackupCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { db: { type: "string" } } });
  if (!values.db) throw new Error("verify-backup needs --db <backup file or postgres:// url>");
  if (!isPostgresUrl(values.db) && !existsSync(values.db)) throw new Error(`No such backup: ${values.db}`);
  // The master key first (an HSM's: a wrong PIN or a missing key refuses here, before the backup is opened).
  let wrapper: Awaited<ReturnType<typeof loadKeyWrapper>>;
  try {
    wrapper = await loadKeyWrapper({ env: process.env, dev: false });
  } catch (err) {
    if (!(err instanceof KeyWrapperError)) throw err;
    process.stderr.write(`verify-backup: ${err.message}\n`);
    return 1;
  }
  const opened = openDatabase(values.db);
  const keyring = new Keyring(opened.db, wrapper);
  try {
    const { verifyBackup } = await import("./backup/verifyBackup");
    let result: Awaited<ReturnType<typeof verifyBackup>>;
    try {
      result = await verifyBackup({ db: opened.db, keyring });
    } catch (err) {
      process.stderr.write(`verify-backup: ${(err as Error).message}\n`);
      return 1;
    }
    const counts = Object.entries(result.checked).map(([kind, n]) => `${kind}: ${n}`);
    process.stdout.write(`Checked ${counts.join(", ")}\n`);
    for (const f of result.failures) process.stdout.write(`FAILED ${f.kind} ${f.id}: ${f.reason}\n`);
    process.stdout.write(result.failures.length ? `${result.failures.length} failure(s)\n` : "Backup OK\n");
    return result.failures.length ? 1 : 0;
  } finally {
    await opened.close();
    await keyring.close();
  }
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
  const file: FileConfig = values.config ? readConfigFile(values.config) : { apps: [], chains: [] };
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
    ...(file.retention ? { retention: file.retention } : {}),
    apps: file.apps,
    chains: file.chains,
    ...(file.solana ? { solana: file.solana } : {}),
    ...(file.walletReserve !== undefined ? { walletReserve: file.walletReserve } : {}),
    logLevel: values["log-level"] ?? file.logLevel ?? "info",
    trustProxy: file.trustProxy,
    devOrigins: values["dev-origin"] ?? process.env.LATCHKEY_DEV_ORIGINS?.split(",").filter(Boolean),
    devMagicLinkUrls: values["dev-redirect-url"],
    ...devEmailMode(values["dev-email-mode"]),
  };

  // Several processes share the port (Node cluster) and the database; every piece of state is in the
  // database, so they agree. The primary prepares the database once, then only supervises.
  if (workers > 1 && cluster.isPrimary) {
    const prepared = await (await loadService(options.dev ?? false))(options);
    await prepared.close();
    let announced = false;
    const fork = () => {
      const worker = cluster.fork();
      worker.on("message", (m: { type?: string; url?: string; dbKind?: string }) => {
        if (m.type === "listening" && !announced) {
          announced = true;
          process.stdout.write(`Latchkey signer service on ${m.url} (${m.dbKind}, ${workers} workers)\n`);
          process.stdout.write(`${[signingLine(), seedsLine(), ...policyLines(options.apps)].join("\n")}\n`);
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

  const service = await (await loadService(options.dev ?? false))(options);
  const url = await service.listen({ port, host });
  if (cluster.isWorker) {
    process.send?.({ type: "listening", url, dbKind: service.ctx.dbKind });
  } else {
    // In dev, the address an app on localhost should use: http://localhost:PORT is on the same site as
    // http://localhost:5173, so the auth frame keeps its storage (127.0.0.1 would be another site).
    const shown = service.devApp && host === "127.0.0.1" ? url.replace("//127.0.0.1:", "//localhost:") : url;
    const lines = [`Latchkey signer service on ${shown} (${service.ctx.dbKind})`, signingLine(), seedsLine()];
    lines.push(...policyLines(options.apps));
    const reserve = service.ctx.walletReserve;
    if (reserve) {
      lines.push(
        `Wallet reserve: ${reserve.target} wallets kept derived ahead of sign-ups (refilled while idle)`,
      );
    }
    if (service.devApp) {
      const { attachDevIdentityProvider } = await import("./dev/index");
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
      const u = idp.standIns.urls;
      lines.push(
        `Dev provider stand-ins: Apple ${u.apple}, Facebook ${u.facebook}, Twitch ${u.twitch}, GitHub ${u.github}, Discord ${u.discord}`,
      );
      for (const policy of service.devApp.app.sponsorship.policies)
        lines.push(
          `Dev sponsorship: policy ${policy.id} pays for the dev app's users on chain ${policy.chainId}`,
        );
      for (const policy of service.devApp.app.sponsorship.solanaPolicies)
        lines.push(`Dev Solana sponsorship: policy ${policy.id}`);
      const devPolicy = service.devApp.app.signingPolicy;
      if (devPolicy) lines.push(...policyLines([{ id: service.devApp.app.id, signingPolicy: devPolicy }]));
      for (const rule of service.devApp.app.signingPolicy?.rules ?? [])
        lines.push(
          `Dev signing policy: ${rule.effect} ${rule.id}${rule.description ? ` (${rule.description})` : ""}`,
        );
    }
    if ((options.chains ?? []).some((c) => c.paymaster))
      lines.push(
        `Paymaster signer: ${await service.paymasterSignerAddress()} (add it to the paymaster's signers)`,
      );
    if (options.solana || (options.apps ?? []).some((a) => a.sponsorship?.solanaPolicies?.length))
      lines.push(`Solana fee payer: ${await service.solanaFeePayerAddress()}`);
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

/** Prints the public part of one of the service's keys (making the key on first use). */
async function printServiceKey(
  args: string[],
  publicPart: (keys: ServiceKeys) => Promise<string>,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { db: { type: "string" }, config: { type: "string" }, dev: { type: "boolean", default: false } },
  });
  const file: Partial<FileConfig> = values.config ? readConfigFile(values.config) : {};
  const env = process.env;
  const keyFile =
    file.masterKeyFile ?? env.LATCHKEY_MASTER_KEY_FILE ?? (values.dev ? ".latchkey/master.key" : undefined);
  const wrapper = await loadKeyWrapper({ env, dev: values.dev, ...(keyFile ? { keyFile } : {}) });
  const opened = openDatabase(values.db ?? env.LATCHKEY_DB ?? file.db ?? DEFAULT_DB);
  const keyring = new Keyring(opened.db, wrapper);
  try {
    await migrate(opened.db);
    await keyring.init();
    const { randomBytes, randomUUID } = await import("node:crypto");
    const keys = new ServiceKeys({
      db: opened.db,
      keyring,
      now: Date.now,
      random: { uuid: randomUUID, bytes: randomBytes },
    });
    process.stdout.write(`${await publicPart(keys)}\n`);
  } finally {
    await opened.close();
    await keyring.close();
  }
  return 0;
}

/** `latchkey activity list|approve|reject`: what an app's signing policy holds, and an admin's decision. */
async function activityCommand(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      app: { type: "string" },
      db: { type: "string" },
      org: { type: "string" },
      url: { type: "string" },
      "admin-key-file": { type: "string" },
    },
  });
  if (verb === "list") {
    if (!values.app) throw new Error("activity list needs --app <id>");
    const opened = openDatabase(values.db ?? process.env.LATCHKEY_DB ?? DEFAULT_DB);
    try {
      await migrate(opened.db);
      const { appOrganizationId, held } = await listHeldActivities(opened.db, values.app);
      process.stdout.write(`App ${values.app}: organization ${appOrganizationId}\n`);
      if (held.length === 0) process.stdout.write("Nothing is waiting for approval.\n");
      for (const a of held) {
        process.stdout.write(
          `\n${a.activityId}  ${a.type}  ${a.createdAt}  ${a.email ?? a.userId}\n  ${a.reason}\n  ${JSON.stringify(
            a.intent,
          )}\n  latchkey activity approve ${a.activityId} --org ${appOrganizationId} --url <serviceUrl>\n`,
        );
      }
    } finally {
      await opened.close();
    }
    return 0;
  }
  if (verb !== "approve" && verb !== "reject") {
    process.stderr.write(HELP.activity as string);
    return 1;
  }
  const activityId = positionals[0];
  if (!activityId || !values.org || !values.url)
    throw new Error(`activity ${verb} needs <activityId>, --org and --url`);
  const keyFile = values["admin-key-file"];
  const envKey = process.env.LATCHKEY_ADMIN_KEY;
  if (!keyFile && !envKey)
    throw new Error("Give the admin key: --admin-key-file <file> or LATCHKEY_ADMIN_KEY");
  const adminKey = keyFile ? readAdminKeyFile(keyFile) : readAdminKey(envKey as string);
  const answer = await decideThroughService({
    serviceUrl: values.url,
    decision: verb,
    organizationId: values.org,
    activityId,
    adminKey,
  });
  if (!answer.ok) {
    process.stderr.write(`The service refused (${answer.status}): ${String(answer.body.message ?? "")}\n`);
    return 1;
  }
  const activity = answer.body.activity as { result?: Record<string, { status?: string }> } | undefined;
  const decided = Object.values(activity?.result ?? {})[0]?.status ?? "";
  process.stdout.write(`Activity ${activityId}: ${decided}\n`);
  return 0;
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

/** What computes new wallets' BIP-39 seeds: the native PBKDF2 addon where it loads, node:crypto otherwise. */
/**
 * One line per app with a signing policy: what it does with bare hashes (raw payloads), whose default
 * depends on its rules and admin keys, and its EIP-7702 delegates.
 */
function policyLines(
  apps: readonly { id: string; signingPolicy?: SigningPolicyConfig | undefined }[] | undefined,
): string[] {
  return (apps ?? []).flatMap((app) =>
    app.signingPolicy ? [describeSigningPolicy(app.id, signingPolicySchema.parse(app.signingPolicy))] : [],
  );
}

function seedsLine(): string {
  const seeds = seedBackend();
  if (seeds.name === "node:crypto")
    return `Wallet seeds: PBKDF2 by node:crypto (${seedFallbackReason() ?? "the native PBKDF2 addon is not loaded"})`;
  const isa = seeds.lanes === 8 ? ", AVX-512" : seeds.lanes === 4 ? ", AVX2" : "";
  return `Wallet seeds: PBKDF2 by the native addon (${seeds.lanes} at once${isa})`;
}

/** Which secp256k1 implementation signs (issue: native where it loads, noble otherwise). */
function signingLine(): string {
  const backend = secp256k1Impl().backend;
  return backend === "libsecp256k1"
    ? "Signing: secp256k1 by libsecp256k1 (native)"
    : "Signing: secp256k1 by @noble/curves (the native secp256k1 addon is not loaded)";
}
