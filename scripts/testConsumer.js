#!/usr/bin/env node
// `npm run test:consumer`: the consumer tests (consumer/vitest.config.ts); when the whole set passes (no
// file or name filter given), records the packaging hash of this green run in consumer/green.sha256
// (scripts/consumerGate.js), which CI compares to skip them while packaging is unchanged. Commit it.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const args = process.argv.slice(2);

function run(command, argv) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: root, stdio: "inherit" });
    child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

const code = await run(process.execPath, [vitest, "run", "--config", "consumer/vitest.config.ts", ...args]);
if (code === 0 && args.length === 0) {
  process.exit(
    await run(process.execPath, [fileURLToPath(new URL("consumerGate.js", import.meta.url)), "record"]),
  );
}
process.exit(code);
