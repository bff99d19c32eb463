#!/usr/bin/env node
// `npm start`: the signer service (SQLite, --dev) and the demo app together. The service's dev app is
// set up to allow the demo's origin and to send magic links to it; the demo gets the service URL and the
// dev API key through Vite's env.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const servicePort = Number(process.env.LATCHKEY_PORT ?? 8787);
const demoPort = Number(process.env.DEMO_PORT ?? 5173);
// Demo and service both on localhost: the auth iframe is then same-site and keeps its key in first-party
// storage (a browser blocks or partitions a third-party frame's storage), and passkeys work (a WebAuthn
// relying-party id must be a domain, never an IP address; the dev app's rp id is its first origin's host).
const demoOrigins = [`http://localhost:${demoPort}`, `http://127.0.0.1:${demoPort}`];

const service = spawn(
  process.execPath,
  [
    "packages/server/bin/latchkey.js",
    "serve",
    "--dev",
    "--port",
    String(servicePort),
    "--host",
    "localhost",
    ...demoOrigins.flatMap((o) => ["--dev-origin", o]),
    "--dev-redirect-url",
    `${demoOrigins[0]}/`,
    "--log-level",
    "warn",
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
);

let vite;
const stop = async (code = 0) => {
  await vite?.close().catch(() => {});
  if (service.exitCode === null) service.kill("SIGTERM");
  process.exit(code);
};
process.once("SIGINT", () => void stop(0));
process.once("SIGTERM", () => void stop(0));
service.once("exit", (code) => {
  if (!vite) {
    process.stderr.write(`The signer service exited (${code}) before it was ready.\n`);
    process.exit(code || 1);
  }
  void stop(code ?? 1);
});

const announced = await new Promise((resolve) => {
  const seen = {};
  let buffer = "";
  service.stdout.on("data", (chunk) => {
    buffer += chunk;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      process.stdout.write(`${line}\n`);
      const url = /signer service on (\S+)/.exec(line)?.[1];
      const key = /Dev app API key: (\S+)/.exec(line)?.[1];
      const mailbox = /Dev mailbox:\s+(\S+)/.exec(line)?.[1];
      if (url) seen.url = url;
      if (key) seen.apiKey = key;
      if (mailbox) {
        seen.mailbox = mailbox;
        resolve(seen);
      }
      nl = buffer.indexOf("\n");
    }
  });
});

process.env.VITE_LATCHKEY_URL = announced.url;
process.env.VITE_LATCHKEY_API_KEY = announced.apiKey;
process.env.VITE_LATCHKEY_MAILBOX = announced.mailbox;
const { createServer } = await import("vite");
vite = await createServer({
  root: `${root}apps/demo`,
  configFile: `${root}apps/demo/vite.config.ts`,
  server: { port: demoPort, strictPort: true, host: "localhost" },
  clearScreen: false,
  logLevel: "warn",
});
await vite.listen();
process.stdout.write(
  [
    "",
    `Demo app:        ${demoOrigins[0]}/`,
    `Signer service:  ${announced.url}`,
    `Dev mailbox:     ${announced.mailbox}   (sign in with any email; the code shows up here)`,
    "Press Ctrl+C to stop both.",
    "",
  ].join("\n"),
);
