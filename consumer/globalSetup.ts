/**
 * Once per run: build every package, `npm pack` it, and install the service from its tarball into a
 * folder of its own (as `npm i @latchkey/server` would), for the test files to start.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

const REPO = resolve(import.meta.dirname, "..");
export const PACKAGES = ["protocol", "keystore", "frames", "core", "react", "server"] as const;

declare module "vitest" {
  export interface ProvidedContext {
    tarballs: Record<string, string>;
    serviceDir: string;
    workDir: string;
  }
}

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  }).toString();

export default async function setup(project: TestProject) {
  const started = Date.now();
  const workDir = mkdtempSync(join(tmpdir(), "latchkey-consumer-"));
  const packs = join(workDir, "packs");
  mkdirSync(packs);
  npm(["run", "build"], REPO);
  const built = Date.now();
  const tarballs: Record<string, string> = {};
  for (const name of PACKAGES) {
    npm(["pack", "--pack-destination", packs], join(REPO, "packages", name));
  }
  for (const file of readdirSync(packs)) {
    const name = /^latchkey-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file)?.[1];
    if (name) tarballs[`@latchkey/${name}`] = join(packs, file);
  }
  const serviceDir = join(workDir, "service");
  mkdirSync(serviceDir);
  writeFileSync(join(serviceDir, "package.json"), JSON.stringify({ name: "service", private: true }));
  // Every tarball goes in together: a dependency on a sibling (^0.1.0) is then met by this build's
  // tarball, as the registry would serve it, never by whatever the registry holds under that name.
  npm(["install", "--prefer-offline", ...Object.values(tarballs)], serviceDir);
  project.provide("tarballs", tarballs);
  project.provide("serviceDir", serviceDir);
  project.provide("workDir", workDir);
  console.log(
    `consumer setup: built in ${Math.round((built - started) / 1000)} s, packed and installed the service in ${Math.round((Date.now() - built) / 1000)} s`,
  );
  return () => rmSync(workDir, { recursive: true, force: true });
}
