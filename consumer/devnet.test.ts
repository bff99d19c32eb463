/**
 * The published shape of @latchkey/devnet: its tarball (built, then packed as npm would publish it) holds
 * the CLI bundle and every file it reads at runtime, installs into an empty folder outside the repository,
 * and its bin answers there.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const PACKAGE = resolve(__dirname, "..", "packages", "devnet");
const dir = mkdtempSync(join(tmpdir(), "latchkey-devnet-pack-"));

// The install is large (hardhat, alto, litesvm): removed without blocking the worker, and given time.
afterAll(() => rm(dir, { recursive: true, force: true }), 300_000);

it("packs the CLI with its runtime files, installs from the tarball and prints its help", async () => {
  await run("npx", ["tsup"], { cwd: PACKAGE });
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: PACKAGE });
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  const files = packed.files.map((f) => f.path);
  for (const file of [
    "bin/latchkey-devnet.js",
    "dist/cli.js",
    "dist/hardhat.config.cjs",
    "dist/orphanGuard.cjs",
    "dist/altoLauncher.mjs",
    "dist/contracts/Counter.json",
    "dist/contracts/LatchkeySimpleAccount.json",
  ])
    expect(files).toContain(file);
  expect(files.some((f) => f.startsWith("src/") || f.startsWith("test/"))).toBe(false);

  const app = join(dir, "app");
  await run("mkdir", [app]);
  writeFileSync(join(app, "package.json"), '{"name":"try-devnet","private":true,"type":"module"}\n');
  await run("npm", ["i", join(dir, packed.filename), "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: app,
  });
  const help = await run(join(app, "node_modules/.bin/latchkey-devnet"), ["--help"], { cwd: app });
  expect(help.stdout).toContain("Usage: latchkey-devnet [options]");
  expect(help.stdout).toContain("--ports=auto");
  const sponsorHelp = await run(join(app, "node_modules/.bin/latchkey-devnet"), ["sponsor", "--help"], {
    cwd: app,
  });
  expect(sponsorHelp.stdout).toContain("Usage: latchkey-devnet sponsor");
}, 900_000);
