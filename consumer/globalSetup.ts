/**
 * Once per run: build every package, `npm pack` it, and install the service from its tarball into a
 * folder of its own (as `npm i @latchkey/server --omit=dev` would), for the test files to start. Dev
 * mode's optional peer (oidc-provider) is added after noting that the install left it out and what
 * `latchkey serve --dev` says without it (packages.test.ts checks both).
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

const REPO = resolve(import.meta.dirname, "..");
export const PACKAGES = [
  "protocol",
  "decoder",
  "keystore",
  "frames",
  "core",
  "react",
  "console",
  "server",
] as const;

declare module "vitest" {
  export interface ProvidedContext {
    tarballs: Record<string, string>;
    serviceDir: string;
    workDir: string;
    omitDevInstall: { hadOidcProvider: boolean; serveDevWithout: { code: number | null; output: string } };
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
  npm(["install", "--prefer-offline", "--omit=dev", ...Object.values(tarballs)], serviceDir);
  const hadOidcProvider = existsSync(join(serviceDir, "node_modules/oidc-provider"));
  const bin = join(serviceDir, "node_modules/@latchkey/server/bin/latchkey.js");
  const withoutPeer = spawnSync(process.execPath, [bin, "serve", "--dev", "--port", "0"], {
    cwd: workDir,
    encoding: "utf8",
    timeout: 60_000,
  });
  const serverManifest = JSON.parse(
    readFileSync(join(serviceDir, "node_modules/@latchkey/server/package.json"), "utf8"),
  ) as { peerDependencies: Record<string, string> };
  npm(
    ["install", "--prefer-offline", `oidc-provider@${serverManifest.peerDependencies["oidc-provider"]}`],
    serviceDir,
  );
  project.provide("omitDevInstall", {
    hadOidcProvider,
    serveDevWithout: { code: withoutPeer.status, output: `${withoutPeer.stdout}${withoutPeer.stderr}` },
  });
  project.provide("tarballs", tarballs);
  project.provide("serviceDir", serviceDir);
  project.provide("workDir", workDir);
  console.log(
    `consumer setup: built in ${Math.round((built - started) / 1000)} s, packed and installed the service in ${Math.round((Date.now() - built) / 1000)} s`,
  );
  return () => rmSync(workDir, { recursive: true, force: true });
}
