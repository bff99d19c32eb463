/**
 * Bundle budget of the sign-in modal as app developers get it. Builds and packs @latchkey/protocol,
 * keystore, decoder, core and react, installs the tarballs into a throw-away app outside the repository (with
 * React, the peers, vite@7 and esbuild), and builds its entry (bench/bundle-size/login.tsx: the provider,
 * the modal with the email, passkey and one social section, a "Log in" button) and a React-only
 * baseline for production, with Vite (Rollup) and with esbuild (splitting). It reports initial JS (the
 * entry chunk and its static imports, transitively) and total JS in raw, gzip (level 9) and brotli
 * (quality 11) bytes, the modal's cost beyond the baseline, and which packages the initial chunks hold.
 * A second line builds the same entry with Vite from the repository's TypeScript (the `source` condition).
 *
 *   npm run bench:bundle-size                  → bench/results/bundle.json
 *   npm run bench:bundle-size -- --no-build    (packs the packages' dist/ as it is)
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { build, defaultClientConditions, type Plugin } from "vite";
import { REPO_ROOT, RESULTS_DIR } from "./lib/paths";

const TARGET_INITIAL_GZIP = 25 * 1024;
/** esbuild may load up to this much more initially than Vite does. */
const ESBUILD_SLACK_GZIP = 10 * 1024;
const PACKAGES = ["protocol", "keystore", "decoder", "core", "react"];
/** What the throw-away app installs beside the tarballs (majors that run on Node 20). */
const APP_DEPENDENCIES = [
  "react@19",
  "react-dom@19",
  "@tanstack/react-query@5",
  "@tanstack/react-form@1",
  "vite@7",
  "@vitejs/plugin-react@5",
  "esbuild@0.25",
];
const HERE = join(REPO_ROOT, "bench/bundle-size");

interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}
interface ChunkInfo extends Sizes {
  file: string;
  initial: boolean;
  /** Rendered bytes per package (minified for esbuild, before minification for Rollup). */
  packages: Record<string, number>;
}
interface Build {
  initial: Sizes;
  total: Sizes;
  chunks: { initial: number; total: number };
  /** The packages in the initial chunks, by their bytes there. */
  initialPackages: Record<string, number>;
}

const sum = (list: Sizes[]): Sizes =>
  list.reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli }), {
    raw: 0,
    gzip: 0,
    brotli: 0,
  });
const minus = (a: Sizes, b: Sizes): Sizes => ({
  raw: a.raw - b.raw,
  gzip: a.gzip - b.gzip,
  brotli: a.brotli - b.brotli,
});

function summarize(chunks: ChunkInfo[]): Build {
  const initial = chunks.filter((c) => c.initial);
  const initialPackages: Record<string, number> = {};
  for (const chunk of initial) {
    for (const [name, bytes] of Object.entries(chunk.packages)) {
      if (bytes > 0) initialPackages[name] = (initialPackages[name] ?? 0) + bytes;
    }
  }
  return {
    initial: sum(initial),
    total: sum(chunks),
    chunks: { initial: initial.length, total: chunks.length },
    initialPackages: Object.fromEntries(Object.entries(initialPackages).sort((a, b) => b[1] - a[1])),
  };
}

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  }).toString();

/** The packed tarballs installed into a fresh app folder under the system's temp directory. */
function installApp(work: string): string {
  if (!process.argv.includes("--no-build")) {
    npm(["run", "build", ...PACKAGES.flatMap((name) => ["-w", `@latchkey/${name}`])], REPO_ROOT);
  }
  const packs = join(work, "packs");
  mkdirSync(packs);
  for (const name of PACKAGES) npm(["pack", "--pack-destination", packs], join(REPO_ROOT, "packages", name));
  const app = join(work, "app");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "bundle-app", private: true, type: "module" }),
  );
  for (const file of ["login.tsx", "baseline.tsx"]) copyFileSync(join(HERE, file), join(app, "src", file));
  copyFileSync(join(HERE, "measure.mjs"), join(app, "measure.mjs"));
  // Every tarball goes in together, so a sibling dependency (^0.1.0) is this build's, not the registry's.
  const tarballs = readdirSync(packs).map((file) => join(packs, file));
  npm(["install", "--prefer-offline", ...tarballs, ...APP_DEPENDENCIES], app);
  return app;
}

/** One build of the installed app with its own vite or esbuild (bench/bundle-size/measure.mjs). */
function buildInstalled(app: string, tool: "vite" | "esbuild", entry: string): Build {
  const out = execFileSync(process.execPath, ["measure.mjs", tool, `src/${entry}`, `dist-${tool}`], {
    cwd: app,
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  return summarize(JSON.parse(out.toString()) as ChunkInfo[]);
}

/** Rendered bytes per package, per chunk, of a build from the repository's source. */
function chunkContents(into: Map<string, Record<string, number>>): Plugin {
  return {
    name: "chunk-contents",
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== "chunk") continue;
        const packages: Record<string, number> = {};
        for (const [id, info] of Object.entries(chunk.modules)) {
          const path = relative(REPO_ROOT, id.replace(/^\0/, ""));
          const name =
            /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ??
            /^packages\/([^/]+)/.exec(path)?.[1]?.replace(/^/, "@latchkey/") ??
            "app";
          packages[name] = (packages[name] ?? 0) + info.renderedLength;
        }
        into.set(chunk.fileName, packages);
      }
    },
  };
}

/** The same entry built with Vite from the repository's TypeScript, as the monorepo's own apps build it. */
async function buildFromSource(work: string, entry: string): Promise<Build> {
  const out = join(work, `source-${entry}`);
  const contents = new Map<string, Record<string, number>>();
  const result = await build({
    root: HERE,
    configFile: false,
    logLevel: "error",
    plugins: [react(), chunkContents(contents)],
    resolve: { conditions: ["source", ...defaultClientConditions] },
    define: { "process.env.NODE_ENV": '"production"' },
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: true,
      target: "es2022",
      chunkSizeWarningLimit: 100_000,
      rollupOptions: { input: join(HERE, entry) },
    },
  });
  const output = (Array.isArray(result) ? result[0] : result) as {
    output: { type: string; fileName: string; isEntry?: boolean; imports?: string[] }[];
  };
  const byFile = new Map(output.output.filter((o) => o.type === "chunk").map((o) => [o.fileName, o]));
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file) || !byFile.has(file)) return;
    initial.add(file);
    for (const i of byFile.get(file)?.imports ?? []) visit(i);
  };
  for (const chunk of byFile.values()) if (chunk.isEntry) visit(chunk.fileName);
  return summarize(
    [...byFile.keys()].map((file) => {
      const code = readFileSync(join(out, file));
      return {
        file,
        initial: initial.has(file),
        raw: code.length,
        gzip: gzipSync(code, { level: 9 }).length,
        brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
        packages: contents.get(file) ?? {},
      };
    }),
  );
}

const work = mkdtempSync(join(tmpdir(), "latchkey-bundle-"));
try {
  const app = installApp(work);
  const measured = {} as Record<"vite" | "esbuild" | "source", { modal: Build; baseline: Build }>;
  for (const tool of ["vite", "esbuild"] as const) {
    measured[tool] = {
      modal: buildInstalled(app, tool, "login.tsx"),
      baseline: buildInstalled(app, tool, "baseline.tsx"),
    };
  }
  measured.source = {
    modal: await buildFromSource(work, "login.tsx"),
    baseline: await buildFromSource(work, "baseline.tsx"),
  };
  const beyond = (m: { modal: Build; baseline: Build }) => ({
    initial: minus(m.modal.initial, m.baseline.initial),
    total: minus(m.modal.total, m.baseline.total),
  });
  const lines = {
    vite: beyond(measured.vite),
    esbuild: beyond(measured.esbuild),
    source: beyond(measured.source),
  };
  const HEAVY = /^(viem|ox|abitype|@noble\/curves|@hpke\/.+|@wagmi\/.+|@walletconnect\/.+|@solana\/.+)$/;
  const heavyIn = (b: Build) => Object.keys(b.initialPackages).filter((name) => HEAVY.test(name));
  const report = {
    date: new Date().toISOString(),
    app: "LatchkeyProvider + AuthModal (email, passkey and Google sections) + a Log in button (bench/bundle-size/login.tsx)",
    how: "npm pack of protocol, keystore, decoder, core, react → npm install in a fresh app outside the repository; vite 7 (rollup) and esbuild 0.25 (bundle, splitting, esm), minified, es2022; gzip level 9, brotli quality 11; beyond a React-only baseline built the same way",
    published: {
      vite: {
        modal: lines.vite,
        withModal: measured.vite.modal,
        baseline: measured.vite.baseline,
      },
      esbuild: {
        modal: lines.esbuild,
        withModal: measured.esbuild.modal,
        baseline: measured.esbuild.baseline,
      },
    },
    source: {
      tool: "vite 7 from the repository's TypeScript (resolve.conditions: source)",
      modal: lines.source,
      withModal: measured.source.modal,
      baseline: measured.source.baseline,
    },
    target: {
      initialGzipMax: TARGET_INITIAL_GZIP,
      esbuildInitialGzipMax: TARGET_INITIAL_GZIP + ESBUILD_SLACK_GZIP,
      vite: lines.vite.initial.gzip <= TARGET_INITIAL_GZIP,
      esbuild: lines.esbuild.initial.gzip <= TARGET_INITIAL_GZIP + ESBUILD_SLACK_GZIP,
    },
    heavyPackagesInInitialChunks: {
      vite: heavyIn(measured.vite.modal),
      esbuild: heavyIn(measured.esbuild.modal),
    },
  };
  writeFileSync(join(RESULTS_DIR, "bundle.json"), `${JSON.stringify(report, null, 2)}\n`);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const line = (name: string, l: { initial: Sizes; total: Sizes }) =>
    `${name.padEnd(22)}initial ${kb(l.initial.gzip)} gzip / ${kb(l.initial.brotli)} brotli; total ${kb(l.total.gzip)} gzip / ${kb(l.total.brotli)} brotli`;
  const ours = (b: Build) =>
    Object.keys(b.initialPackages)
      .filter((name) => !/^(react|react-dom|scheduler|app)$/.test(name))
      .join(", ");
  console.log(
    [
      "The modal's JS beyond a React-only app:",
      line("published, Vite", lines.vite),
      line("published, esbuild", lines.esbuild),
      line("source, Vite", lines.source),
      `Initial chunks, Vite:    ${ours(measured.vite.modal)}`,
      `Initial chunks, esbuild: ${ours(measured.esbuild.modal)}`,
      `Target: Vite initial ≤ ${kb(TARGET_INITIAL_GZIP)} gzip → ${report.target.vite ? "met" : "NOT met"}; esbuild ≤ ${kb(TARGET_INITIAL_GZIP + ESBUILD_SLACK_GZIP)} → ${report.target.esbuild ? "met" : "NOT met"}`,
    ].join("\n"),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
