#!/usr/bin/env node
// `npm run test:fallback` (part of `npm test`): the tests that sign, derive wallets and report the crypto
// paths, run again with both native addons turned off, as on a machine where they cannot build (no
// compiler, install scripts not allowed, an unsupported platform). Signatures then come from @noble/curves
// and BIP-39 seeds from node:crypto; the tests check the same signatures, on-chain user operations, exports
// and the start-up log and /healthz naming the fallbacks.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const runs = [
  [
    "packages/server/src/crypto",
    "packages/server/test/export-wallet.test.ts",
    "packages/server/test/wallet-reserve.test.ts",
    "packages/core/test/node-signing.test.ts",
    "packages/core/test/node-smart-account.test.ts",
  ],
  // Of the CLI's tests, only the start-up log names the crypto paths (the others start processes that
  // would only repeat the run above, at a process start each).
  ["packages/server/test/cli.test.ts", "-t", "serve --dev starts on SQLite"],
];

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, "run", ...args, ...process.argv.slice(2)], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, LATCHKEY_SECP256K1: "noble", LATCHKEY_PBKDF2: "node" },
    });
    child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

let failed = 0;
for (const args of runs) if ((await run(args)) !== 0) failed++;
process.exit(failed ? 1 : 0);
