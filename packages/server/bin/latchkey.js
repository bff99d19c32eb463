#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so the repository works without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli.ts");
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (e) {
  process.stderr.write(`latchkey: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
