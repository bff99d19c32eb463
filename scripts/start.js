#!/usr/bin/env node
// `npm start`: the signer service (SQLite, --dev) and the demo app together. The service's dev app is
// set up to allow the demo's origin and to send magic links to it; the demo gets the service URL and the
// dev API key through Vite's env.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const servicePort = Number(process.env.LATCHKEY_PORT ?? 8787);
const demoPort = Number(process.env.DEMO_PORT ?? 5173);
// Demo and service both on localhost: the auth iframe is then same-site and keeps its key in first-party
// storage (a browser blocks or partitions a third-party frame's storage), and passkeys work (a WebAuthn
// relying-party id must be a domain, never an IP address; the dev app's rp id is its first origin's host).
const demoOrigins = [`http://localhost:${demoPort}`, `http://127.0.0.1:${demoPort}`];

const chainPort = Number(process.env.CHAIN_PORT ?? 8545);
const bundlerPort = Number(process.env.BUNDLER_PORT ?? 4337);
// A second, bare chain (no contracts) for external wallets to switch to, and a local WalletConnect relay.
const secondChainPort = Number(process.env.SECOND_CHAIN_PORT ?? 8546);
const relayPort = Number(process.env.RELAY_PORT ?? 8590);
// A local Solana node (litesvm behind JSON-RPC and PubSub): the service's fee payer sponsors the dev app's
// Solana transactions there, and the demo's faucet airdrops from it.
const solanaPort = Number(process.env.SOLANA_PORT ?? 8899);
/** What the service's Solana fee payer gets at start: 1,000 SOL, enough for 100 million sponsored fees. */
const FEE_PAYER_LAMPORTS = 1_000n * 1_000_000_000n;

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

// The local chain: hardhat with EntryPoint v0.8, SimpleAccountFactory, the verifying paymaster (funded) and
// a Counter contract, and the alto bundler. The service sponsors the dev app's users there.
const chainProcess = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "test-support/chain/cli.ts",
    "--port",
    String(chainPort),
    "--bundler-port",
    String(bundlerPort),
    "--second-chain",
    "31338",
    "--second-port",
    String(secondChainPort),
  ],
  { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
);
// A local WalletConnect relay: WalletConnect's cloud relay stands in for it in production (dev only).
const relayProcess = spawn(process.execPath, ["--import", "tsx", "test-support/wallets/relayCli.ts"], {
  cwd: root,
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, RELAY_PORT: String(relayPort) },
});
const relayReady = jsonEvent(relayProcess, (e) => e.event === "ready");
const solanaProcess = spawn(
  process.execPath,
  ["--import", "tsx", "test-support/solana/cli.ts", "--port", String(solanaPort)],
  { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
);
const solanaReady = jsonEvent(solanaProcess, (e) => e.event === "ready");
let chain;
try {
  chain = await jsonEvent(chainProcess, (e) => e.event === "ready");
} catch (e) {
  process.stderr.write(
    `The local chain did not start: ${e.message} (CHAIN_PORT and BUNDLER_PORT pick other ports)\n`,
  );
  solanaProcess.kill("SIGTERM");
  relayProcess.kill("SIGTERM");
  process.exit(1);
}
let solana;
try {
  solana = await solanaReady;
} catch (e) {
  process.stderr.write(
    `The local Solana node did not start: ${e.message} (SOLANA_PORT picks another port)\n`,
  );
  chainProcess.kill("SIGTERM");
  relayProcess.kill("SIGTERM");
  process.exit(1);
}
mkdirSync(`${root}.latchkey`, { recursive: true });
const chainConfigFile = `${root}.latchkey/dev-chain.json`;
writeFileSync(
  chainConfigFile,
  `${JSON.stringify(
    {
      chains: [
        { chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster },
        { chainId: chain.secondChain.chainId, rpcUrl: chain.secondChain.rpcUrl },
      ],
      solana: { rpcUrl: solana.url },
    },
    null,
    2,
  )}\n`,
);

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
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
);

let vite;
const stop = async (code = 0) => {
  await vite?.close().catch(() => {});
  if (service.exitCode === null) service.kill("SIGTERM");
  if (chainProcess.exitCode === null) chainProcess.kill("SIGTERM");
  if (relayProcess.exitCode === null) relayProcess.kill("SIGTERM");
  if (solanaProcess.exitCode === null) solanaProcess.kill("SIGTERM");
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

chainProcess.once("exit", (code) => {
  process.stderr.write(`The local chain exited (${code}).\n`);
  void stop(code || 1);
});
solanaProcess.once("exit", (code) => {
  process.stderr.write(`The local Solana node exited (${code}).\n`);
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
      if (url) seen.url = url;
      if (key) seen.apiKey = key;
      if (mailbox) seen.mailbox = mailbox;
      if (policy) seen.policyId = policy;
      if (solanaFeePayer) seen.solanaFeePayer = solanaFeePayer;
      if (solanaPolicy) seen.solanaPolicyId = solanaPolicy;
      if (paymasterSigner) seen.paymasterSigner = paymasterSigner;
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
chainProcess.stdin.write(`${JSON.stringify({ addPaymasterSigner: announced.paymasterSigner })}\n`);
await jsonEvent(chainProcess, (e) => e.event === "paymasterSignerAdded" || e.event === "error").then((e) => {
  if (e.event === "error") throw new Error(`The paymaster did not take the service's signer: ${e.message}`);
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
  solanaProcess.stdin.write(
    `${JSON.stringify({ airdrop: announced.solanaFeePayer, lamports: String(FEE_PAYER_LAMPORTS) })}\n`,
  );
  await jsonEvent(solanaProcess, (e) => e.event === "airdropped" || e.event === "error").then((e) => {
    if (e.event === "error") throw new Error(`The Solana fee payer was not funded: ${e.message}`);
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
let relay;
try {
  relay = await relayReady;
} catch (e) {
  process.stderr.write(
    `The WalletConnect relay did not start: ${e.message} (RELAY_PORT picks another port)\n`,
  );
  await stop(1);
}
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
