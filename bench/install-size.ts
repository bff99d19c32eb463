/**
 * Install size of @latchkey/core and @latchkey/react as an app developer gets them: packs @latchkey/protocol,
 * keystore, core and react, then installs each of core and react from its tarball (with the siblings it
 * depends on) into an empty folder with npm, as `npm i @latchkey/core` would, and measures node_modules
 * (apparent bytes, as `du -sb`, and the number of packages). npm installs required peers (react's React and
 * TanStack) and leaves optional ones out: the figure is what a plain install costs.
 *
 *   npm run bench:install-size                         → bench/results/install-size.json ("current")
 *   npm run bench:install-size -- --label before       (kept under that label; other labels stay)
 *   npm run bench:install-size -- --no-build           (packs the packages' dist/ as it is)
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, RESULTS_DIR } from "./lib/paths";

const PACKED = ["protocol", "keystore", "core", "react"] as const;
const MEASURED = ["core", "react"] as const;

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  }).toString();

/** Apparent size of a folder (files and links as they are, not the blocks they take), like `du -sb`. */
function bytesOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, name) => total + bytesOf(join(path, name)), stat.size);
}

/** Installed packages: every folder holding a package.json under node_modules, at any depth. */
function packagesIn(nodeModules: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const path = join(dir, name);
      if (name.startsWith("@")) {
        for (const scoped of readdirSync(path)) visitPackage(join(path, scoped), `${name}/${scoped}`);
      } else visitPackage(path, name);
    }
  };
  const visitPackage = (path: string, name: string) => {
    if (!existsSync(join(path, "package.json"))) return;
    found.push(name);
    visit(join(path, "node_modules"));
  };
  visit(nodeModules);
  return found;
}

interface Measured {
  bytes: number;
  megabytes: number;
  packages: number;
  /** The ten largest top-level packages, in MB. */
  largest: Record<string, number>;
}

function measure(app: string): Measured {
  const nodeModules = join(app, "node_modules");
  const sizes = new Map<string, number>();
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith(".")) continue;
    const names = name.startsWith("@")
      ? readdirSync(join(nodeModules, name)).map((n) => `${name}/${n}`)
      : [name];
    for (const n of names) sizes.set(n, bytesOf(join(nodeModules, n)));
  }
  const bytes = bytesOf(nodeModules);
  const mb = (n: number) => Math.round((n / 1e6) * 10) / 10;
  return {
    bytes,
    megabytes: mb(bytes),
    packages: packagesIn(nodeModules).length,
    largest: Object.fromEntries(
      [...sizes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([n, b]) => [n, mb(b)]),
    ),
  };
}

const argValue = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const label = argValue("--label") ?? "current";
const work = mkdtempSync(join(tmpdir(), "latchkey-install-size-"));
try {
  if (!process.argv.includes("--no-build"))
    npm(["run", "build", ...PACKED.flatMap((name) => ["-w", `@latchkey/${name}`])], REPO_ROOT);
  const packs = join(work, "packs");
  mkdirSync(packs);
  const tarballs: Record<string, string> = {};
  for (const name of PACKED) {
    const file = npm(["pack", "--pack-destination", packs], join(REPO_ROOT, "packages", name))
      .trim()
      .split("\n")
      .at(-1) as string;
    tarballs[name] = join(packs, file);
  }
  const results: Record<string, Measured> = {};
  for (const name of MEASURED) {
    const app = join(work, name);
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: `install-${name}`, private: true }));
    // The measured package and the siblings it needs, from this build: the registry's are never used.
    const siblings =
      name === "react" ? ["protocol", "keystore", "core", "react"] : ["protocol", "keystore", "core"];
    npm(["install", "--prefer-offline", ...siblings.map((s) => tarballs[s] as string)], app);
    results[`@latchkey/${name}`] = measure(app);
    console.log(
      `@latchkey/${name}: ${results[`@latchkey/${name}`]?.megabytes} MB in node_modules, ${results[`@latchkey/${name}`]?.packages} packages`,
    );
  }
  const out = join(RESULTS_DIR, "install-size.json");
  const previous = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>) : {};
  const node = process.version;
  const npmVersion = npm(["--version"], REPO_ROOT).trim();
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        ...previous,
        method:
          "npm install of the packed tarball (and its @latchkey siblings) into an empty folder; node_modules' apparent size (du -sb) and package count",
        [label]: { measuredAt: new Date().toISOString(), node, npm: npmVersion, ...results },
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${out} (${label})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
