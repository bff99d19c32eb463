import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { type FileConfig, readConfigFile } from "../config";
import type { ServiceOptions } from "../createService";
import { consoleLines } from "./admin";
import { type CliCommand, DEFAULT_DB, databaseOf, ENVIRONMENT } from "./command";
import { devLines, policyLines, seedsLine, signingLine } from "./serveStatus";

const HELP = `Usage: latchkey serve [options]

Start the signer service.

Options:
  --port <n>            Port (default 8787, or PORT; 0 picks a free one)
  --host <addr>         Address to bind (default 127.0.0.1; 0.0.0.0 behind a proxy in a container)
  --db <url|path>       SQLite file path or postgres:// URL (default ${DEFAULT_DB})
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
  --dev-custody <service|split>  How the dev app keeps wallets (default service; split: every
                        signature needs the user's share, docs/split-custody.md)
  -h, --help            This help

${ENVIRONMENT}`;

/** `latchkey serve`: the signer service, in one process or several sharing the port (--workers). */
export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Start the signer service",
  help: HELP,
  run: serve,
};

// The service (Fastify, every route, viem) loads only for commands that start it: `--help` and the small
// commands answer in a fraction of the time. Dev mode's comes from the dev entry, loaded only for --dev.
const loadService = async (dev: boolean) => {
  if (!dev) return (await import("../createService")).createService;
  const devEntry = await import("../dev/index");
  await devEntry.checkDevDependencies();
  return devEntry.createService;
};

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
      "dev-custody": { type: "string" },
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
    db: databaseOf(values.db, file.db),
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
    ...devCustody(values["dev-custody"]),
  };
  if (workers > 1 && cluster.isPrimary) return superviseWorkers(options, workers);

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
      const { attachDevIdentityProvider } = await import("../dev/index");
      const oidcPort = Number(values["dev-oidc-port"] ?? (port === 0 ? 0 : port + 1));
      const idp = await attachDevIdentityProvider(service, url, { port: oidcPort });
      const close = service.close.bind(service);
      service.close = async () => {
        await idp.close();
        await close();
      };
      lines.push(...devLines(service.devApp, shown, idp, options.devOrigins));
    }
    lines.push(...(await consoleLines(service, shown)));
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

/**
 * Several processes share the port (Node cluster) and the database; every piece of state is in the
 * database, so they agree. The primary prepares the database once, then only supervises.
 */
async function superviseWorkers(options: ServiceOptions, workers: number): Promise<number> {
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

function devCustody(value: string | undefined): { devCustody?: "service" | "split" } {
  if (value === undefined || value === "") return {};
  if (value !== "service" && value !== "split") throw new Error("--dev-custody takes service or split");
  return { devCustody: value };
}

function devEmailMode(value: string | undefined): { devEmailMode?: "OTP" | "MAGIC_LINK" } {
  if (value === undefined) return {};
  const mode = value.toUpperCase().replace("-", "_");
  if (mode !== "OTP" && mode !== "MAGIC_LINK") throw new Error("--dev-email-mode takes OTP or MAGIC_LINK");
  return { devEmailMode: mode };
}
