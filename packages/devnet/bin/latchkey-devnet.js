#!/usr/bin/env node
// The `latchkey-devnet` command. Installed from the package it runs the built CLI (dist/); in a checkout of
// the repository it runs the TypeScript source through tsx.
import { existsSync } from "node:fs";

const source = new URL("../src/cli.ts", import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import("../dist/cli.js"));
}
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
