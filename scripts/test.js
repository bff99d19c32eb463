#!/usr/bin/env node
// `npm test`: the checks (`npm run checks`: typecheck, lint, import cycles) and the vitest run side by side,
// not one after the other. The checks took ~47 s of a quiet machine's wall before the first test started;
// beside the tests they cost CPU but little wall. Arguments go to vitest (`npm test -- --reporter=json`).
//
// The vitest run's output streams as it comes; the checks' output is held and printed as one block when
// they end (when they fail, again after the tests, so it is not lost in their output). The exit code is the
// first failure's: 1 when either failed, and a signal that ended either ends the run.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** Runs `command args`, resolving with its exit code (128 + signal number when a signal ended it). */
function run(command, args, options) {
  const child = spawn(command, args, { ...options, shell: false });
  const done = new Promise((resolve) => {
    child.on("error", (e) => {
      console.error(`${command}: ${e.message}`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  return { child, done };
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const checks = run(npm, ["run", "--silent", "checks"], { stdio: ["ignore", "pipe", "pipe"] });
let checksOutput = "";
checks.child.stdout.on("data", (d) => {
  checksOutput += d;
});
checks.child.stderr.on("data", (d) => {
  checksOutput += d;
});
const checksCode = checks.done.then((code) => {
  const verdict = code === 0 ? "passed" : `FAILED (exit ${code})`;
  process.stdout.write(
    `\n── checks (typecheck, lint, cycles) ${verdict} after ${seconds()} ──\n${checksOutput.trimEnd()}\n──\n`,
  );
  return code;
});

// The repository's vitest (also when this script is run without npm).
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const tests = run(process.execPath, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    checks.child.kill(signal);
    tests.child.kill(signal);
  });
}

const [checksExit, testsExit] = await Promise.all([checksCode, tests.done]);
if (checksExit !== 0) {
  process.stdout.write(`\n── checks FAILED (exit ${checksExit}) ──\n${checksOutput.trimEnd()}\n──\n`);
}
process.stdout.write(
  `npm test: checks ${checksExit === 0 ? "passed" : "FAILED"}, tests ${testsExit === 0 ? "passed" : "FAILED"} (${seconds()})\n`,
);
process.exit(checksExit !== 0 ? checksExit : testsExit);
