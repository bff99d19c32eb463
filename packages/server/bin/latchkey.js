#!/usr/bin/env node
// The `latchkey` command. Installed from the package it runs the built CLI (dist/); in a checkout of the
// repository it runs the TypeScript source through tsx, resolving our packages to their `source` exports,
// unless LATCHKEY_CLI names a build of the CLI to run instead (the tests' global setup builds one per run:
// test-support/buildCli.ts). An installed package ignores LATCHKEY_CLI: it always runs its own dist/.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const source = new URL("../src/cli/index.ts", import.meta.url);
let main;
const checkout = existsSync(source);
if (checkout && process.env.LATCHKEY_CLI) {
  ({ main } = await import(pathToFileURL(process.env.LATCHKEY_CLI).href));
} else if (checkout) {
  const { register } = await import("node:module");
  const { register: registerTsx } = await import("tsx/esm/api");
  registerTsx();
  // Registered last, so it runs first: every resolution also matches the `source` export condition.
  register(
    `data:text/javascript,${encodeURIComponent(
      "export async function resolve(specifier, context, next) { return next(specifier, { ...context, conditions: [...new Set(['source', ...context.conditions])] }); }",
    )}`,
  );
  ({ main } = await import(source.href));
} else {
  ({ main } = await import("../dist/cli.js"));
}
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (e) {
  process.stderr.write(`latchkey: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
