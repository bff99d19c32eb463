// The local WalletConnect relay as a process (dev/test only: see relay.ts), for `npm start` and e2e runs:
//
//   RELAY_PORT=0 node --import tsx test-support/wallets/relayCli.ts
//
// Prints one JSON line once it listens: {"event":"ready","url":"ws://127.0.0.1:P"}. RELAY_PORT (default 0 = a
// free port) picks the port, RELAY_HOST (default 127.0.0.1) the address, RELAY_LOG=1 logs the traffic on stderr.
// Stops on SIGINT and SIGTERM.
import { startWalletConnectRelay } from "./relay.js";

function portFromEnv(): number {
  const value = process.env.RELAY_PORT ?? "0";
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`RELAY_PORT: not a port: ${value}`);
  return port;
}

async function main(): Promise<void> {
  const log = process.env.RELAY_LOG
    ? (...args: unknown[]) => process.stderr.write(`relay ${args.join(" ")}\n`)
    : undefined;
  const relay = await startWalletConnectRelay({
    host: process.env.RELAY_HOST || "127.0.0.1",
    port: portFromEnv(),
    log,
  });
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void relay.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  process.stdout.write(`${JSON.stringify({ event: "ready", url: relay.url })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The WalletConnect relay did not start: ${error instanceof Error ? error.message : error}\n`,
  );
  process.exit(1);
});
