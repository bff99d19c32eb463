#!/usr/bin/env node
// `npm start`: the signer service (SQLite, --dev) and the demo app together. The service's dev app is
// set up to allow the demo's origin and to send magic links to it; the demo gets the service URL and the
// dev API key through Vite's env.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const servicePort = Number(process.env.LATCHKEY_PORT ?? 8787);
const demoPort = Number(process.env.DEMO_PORT ?? 5173);
// Demo and service both on localhost: the auth iframe is then same-site and keeps its key in first-party
// storage (a browser blocks or partitions a third-party frame's storage), and passkeys work (a WebAuthn
// relying-party id must be a domain, never an IP address; the dev app's rp id is its first origin's host).
const demoOrigins = [`http://localhost:${demoPort}`, `http://127.0.0.1:${demoPort}`];
// The dev app's custody (docs/split-custody.md): "split" (the default) makes each wallet in the browser's
// auth frame and every signature needs the user's share; the demo's bot signs under a grant with the copy
// of the share the grant keeps. `LATCHKEY_DEMO_CUSTODY=service npm start` for the service keeping wallets
// whole (or `npm start -- --dev-custody service`).
const demoCustody = process.env.LATCHKEY_DEMO_CUSTODY ?? "split";

const chainPort = Number(process.env.CHAIN_PORT ?? 8545);
const bundlerPort = Number(process.env.BUNDLER_PORT ?? 4337);
// A second, bare chain (no contracts) for external wallets to switch to, and a local WalletConnect relay.
const secondChainPort = Number(process.env.SECOND_CHAIN_PORT ?? 8546);
const relayPort = Number(process.env.RELAY_PORT ?? 8590);
// A local Solana node (litesvm behind JSON-RPC and PubSub): the service's fee payer sponsors the dev app's
// Solana transactions there, and the demo's faucet airdrops from it.
const solanaPort = Number(process.env.SOLANA_PORT ?? 8899);

/** The first stdout JSON line of `child` that `match` accepts (other lines are passed through to stderr). */
function jsonEvent(child, match) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const onExit = (code) => reject(new Error(`exited (${code}) before it was ready`));
    child.once("exit", onExit);
    lines.on("line", (line) => {
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        process.stderr.write(`${line}\n`);
        return;
      }
      if (!match(event)) return;
      child.off("exit", onExit);
      lines.removeAllListeners("line");
      lines.close();
      resolve(event);
    });
  });
}

// The dev stack (@latchkey/devnet, from its source): hardhat with EntryPoint v0.8, the account factories,
// Simple7702Account, the verifying paymaster (funded) and a Counter contract, the alto bundler, the second
// chain, the local WalletConnect relay (WalletConnect's cloud relay stands in for it in production) and the
// Solana node. The service sponsors the dev app's users there; the devnet writes the service's chain config.
mkdirSync(`${root}.latchkey`, { recursive: true });
const chainConfigFile = `${root}.latchkey/dev-chain.json`;
const devnet = spawn(
  process.execPath,
  [
    "packages/devnet/bin/latchkey-devnet.js",
    "--json",
    "--chain-port",
    String(chainPort),
    "--bundler-port",
    String(bundlerPort),
    "--second-chain",
    "31338",
    "--second-chain-port",
    String(secondChainPort),
    "--solana-port",
    String(solanaPort),
    "--relay-port",
    String(relayPort),
    "--write-config",
    chainConfigFile,
  ],
  { cwd: root, stdio: ["pipe", "pipe", "pipe"] },
);
// Its human-readable text goes to stderr: `npm start` prints its own summary, and shows it only on failure.
let devnetText = "";
devnet.stderr.on("data", (chunk) => {
  devnetText = (devnetText + chunk).slice(-8_000);
});
let ready;
try {
  ready = await jsonEvent(devnet, (e) => e.event === "ready");
} catch (e) {
  process.stderr.write(
    `${devnetText}The local dev stack did not start: ${e.message} (CHAIN_PORT, BUNDLER_PORT, SECOND_CHAIN_PORT, SOLANA_PORT and RELAY_PORT pick other ports)\n`,
  );
  process.exit(1);
}
const chain = { ...ready.chain, secondChain: ready.secondChain };
const solana = { url: ready.solana.rpcUrl };
/** Registers the service's keys with the devnet: its paymaster signer, its Solana fee payer (1,000 SOL). */
const sponsor = async (command) => {
  devnet.stdin.write(`${JSON.stringify(command)}\n`);
  const e = await jsonEvent(devnet, (e) => e.event === "sponsored" || e.event === "error");
  if (e.event === "error") throw new Error(e.message);
};

const service = spawn(
  process.execPath,
  [
    "packages/server/bin/latchkey.js",
    "serve",
    "--config",
    chainConfigFile,
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
    "--dev-custody",
    demoCustody,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
);

let vite;
const stop = async (code = 0) => {
  await vite?.close().catch(() => {});
  if (service.exitCode === null) service.kill("SIGTERM");
  if (devnet.exitCode === null) devnet.kill("SIGTERM");
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

devnet.once("exit", (code) => {
  process.stderr.write(`The local dev stack exited (${code}).\n`);
  void stop(code || 1);
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
      const paymasterSigner = /Paymaster signer: (0x[0-9a-fA-F]{40})/.exec(line)?.[1];
      const policy = /Dev sponsorship: policy (\S+)/.exec(line)?.[1];
      const solanaFeePayer = /Solana fee payer: ([1-9A-HJ-NP-Za-km-z]{32,44})/.exec(line)?.[1];
      const solanaPolicy = /Dev Solana sponsorship: policy (\S+)/.exec(line)?.[1];
      const adminConsole = /Admin console:\s+(\S+)/.exec(line)?.[1];
      const enrolment = /Dev admin enrolment: (\S+)/.exec(line)?.[1];
      if (url) seen.url = url;
      if (key) seen.apiKey = key;
      if (mailbox) seen.mailbox = mailbox;
      if (policy) seen.policyId = policy;
      if (solanaFeePayer) seen.solanaFeePayer = solanaFeePayer;
      if (solanaPolicy) seen.solanaPolicyId = solanaPolicy;
      if (paymasterSigner) seen.paymasterSigner = paymasterSigner;
      if (adminConsole) seen.adminConsole = adminConsole;
      if (enrolment) seen.enrolment = enrolment;
      nl = buffer.indexOf("\n");
    }
    // The service prints its start lines in one write: the chunk with the paymaster's line has them all.
    if (seen.paymasterSigner) resolve(seen);
  });
});

process.env.VITE_LATCHKEY_URL = announced.url;
process.env.VITE_LATCHKEY_API_KEY = announced.apiKey;
process.env.VITE_LATCHKEY_MAILBOX = announced.mailbox;
// The service signs for the paymaster: the chain's paymaster must accept its key.
await sponsor({ paymasterSigner: announced.paymasterSigner }).catch((e) => {
  throw new Error(`The paymaster did not take the service's signer: ${e.message}`);
});
process.env.VITE_LATCHKEY_CHAIN = JSON.stringify({
  chainId: chain.chainId,
  rpcUrl: chain.rpcUrl,
  bundlerUrl: chain.bundlerUrl,
  counter: chain.counter,
  policyId: announced.policyId,
});
// The service's Solana fee payer pays the fees it sponsors: it starts with 1,000 SOL.
if (announced.solanaFeePayer) {
  await sponsor({ solanaFeePayer: announced.solanaFeePayer }).catch((e) => {
    throw new Error(`The Solana fee payer was not funded: ${e.message}`);
  });
} else {
  process.stderr.write(
    "The signer service announced no Solana fee payer: Solana transfers are not sponsored.\n",
  );
}
process.env.VITE_LATCHKEY_SOLANA = JSON.stringify({
  rpcUrl: solana.url,
  ...(announced.solanaPolicyId ? { policyId: announced.solanaPolicyId } : {}),
  ...(announced.solanaFeePayer ? { feePayer: announced.solanaFeePayer } : {}),
});
const relay = { url: ready.walletConnect.relayUrl };
process.env.VITE_LATCHKEY_WALLETS = JSON.stringify({
  chains: [
    { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: "Latchkey dev chain" },
    { chainId: chain.secondChain.chainId, rpcUrl: chain.secondChain.rpcUrl, name: "Second dev chain" },
  ],
  walletConnect: { projectId: "local-dev", relayUrl: relay.url },
});
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
    `Custody:         ${demoCustody === "split" ? "split (each wallet is made in the browser; every signature needs the user's share)" : "service (the service keeps each wallet whole)"}; LATCHKEY_DEMO_CUSTODY=${demoCustody === "split" ? "service" : "split"} for the other`,
    `Admin console:   ${announced.adminConsole}`,
    `                 enrol the dev app's admin "dev" (a passkey) once with ${announced.enrolment}`,
    `Local chain:     ${chain.rpcUrl} (chain ${chain.chainId}), bundler ${chain.bundlerUrl}, counter ${chain.counter}`,
    `Sponsorship:     policy ${announced.policyId}, paymaster ${chain.paymaster} signed by ${announced.paymasterSigner}`,
    `Second chain:    ${chain.secondChain.rpcUrl} (chain ${chain.secondChain.chainId}), for external wallets to switch to`,
    `WalletConnect:   local relay ${relay.url}; pair a dev wallet with: npm run dev:wallet -- "<wc: link from the modal>"`,
    `Solana:          ${solana.url} (litesvm; every transaction final at once)${
      announced.solanaFeePayer
        ? `, fee payer ${announced.solanaFeePayer} (1,000 SOL)${announced.solanaPolicyId ? `, policy ${announced.solanaPolicyId}` : ""}`
        : ""
    }`,
    "Press Ctrl+C to stop everything.",
    "",
  ].join("\n"),
);
