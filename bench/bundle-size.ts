/**
 * Bundle budget of the sign-in modal: builds a minimal host app (provider + modal opened with the email
 * and passkey sections) and a React-only baseline for production with Vite (Rollup: minified,
 * tree-shaken, code-split), then reports initial JS (the entry chunk and its static imports) and total
 * JS in raw, gzip (level 9) and brotli (quality 11) bytes, and the modal's cost beyond the baseline.
 *
 *   npm run bench:bundle-size       → bench/results/bundle.json
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { build, defaultClientConditions, type Plugin } from "vite";
import { REPO_ROOT, RESULTS_DIR } from "./lib";

const TARGET_INITIAL_GZIP = 40 * 1024;

interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

const measure = (code: Buffer): Sizes => ({
  raw: code.length,
  gzip: gzipSync(code, { level: 9 }).length,
  brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
});
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

interface Manifest {
  [key: string]: { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };
}

/** Rendered (minified, pre-compression) bytes per package, to see what the bundle is made of. */
function byPackage(into: Record<string, number>): Plugin {
  return {
    name: "bytes-by-package",
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== "chunk") continue;
        for (const [id, info] of Object.entries(chunk.modules)) {
          const path = relative(REPO_ROOT, id.replace(/^\0/, ""));
          const pkg =
            /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ??
            /^packages\/([^/]+)/.exec(path)?.[1]?.replace(/^/, "@latchkey/") ??
            "app";
          into[pkg] = (into[pkg] ?? 0) + info.renderedLength;
        }
      }
    },
  };
}

async function buildApp(entry: string, extra: Plugin[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-bundle-"));
  const root = join(dir, "app");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "index.html"),
    `<!doctype html><html><body><div id="root"></div><script type="module" src="${join(REPO_ROOT, "bench/bundle-size", entry)}"></script></body></html>`,
  );
  const packages: Record<string, number> = {};
  await build({
    root,
    configFile: false,
    logLevel: "error",
    plugins: [...extra, react(), byPackage(packages)],
    resolve: { conditions: ["source", ...defaultClientConditions] },
    define: { "process.env.NODE_ENV": '"production"' },
    build: {
      outDir: join(dir, "dist"),
      manifest: true,
      minify: true,
      target: "es2022",
      chunkSizeWarningLimit: 10_000,
    },
  });
  const out = join(dir, "dist");
  const manifest = JSON.parse(readFileSync(join(out, ".vite/manifest.json"), "utf8")) as Manifest;
  const entryKey = Object.keys(manifest).find((k) => manifest[k]?.isEntry) as string;
  const initial = new Set<string>();
  const visit = (key: string) => {
    const m = manifest[key];
    if (!m || initial.has(m.file)) return;
    initial.add(m.file);
    for (const i of m.imports ?? []) visit(i);
  };
  visit(entryKey);
  const all = new Set(
    Object.values(manifest)
      .map((m) => m.file)
      .filter((f) => f.endsWith(".js")),
  );
  const size = (files: Iterable<string>) => sum([...files].map((f) => measure(readFileSync(join(out, f)))));
  const result = {
    initial: size(initial),
    total: size(all),
    chunks: { initial: initial.size, total: all.size },
    packages: Object.fromEntries(Object.entries(packages).sort((a, b) => b[1] - a[1])),
  };
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const modal = await buildApp("modal.tsx");
const baseline = await buildApp("baseline.tsx");
const modalInitial = minus(modal.initial, baseline.initial);
const modalTotal = minus(modal.total, baseline.total);
const report = {
  date: new Date().toISOString(),
  tool: "vite 7 (rollup), minified, tree-shaken, code-split; gzip level 9, brotli quality 11",
  app: "LatchkeyProvider + AuthModal opened with the email and passkey sections",
  baseline: { initial: baseline.initial, total: baseline.total },
  withModal: { initial: modal.initial, total: modal.total, chunks: modal.chunks },
  modal: { initial: modalInitial, total: modalTotal },
  target: { initialGzipMax: TARGET_INITIAL_GZIP, met: modalInitial.gzip <= TARGET_INITIAL_GZIP },
  renderedBytesByPackage: modal.packages,
};
writeFileSync(join(RESULTS_DIR, "bundle.json"), `${JSON.stringify(report, null, 2)}\n`);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  [
    `React-only baseline   initial ${kb(baseline.initial.gzip)} gzip / ${kb(baseline.initial.brotli)} brotli`,
    `With the modal        initial ${kb(modal.initial.gzip)} gzip / ${kb(modal.initial.brotli)} brotli; total ${kb(modal.total.gzip)} gzip / ${kb(modal.total.brotli)} brotli`,
    `The modal's own JS    initial ${kb(modalInitial.gzip)} gzip / ${kb(modalInitial.brotli)} brotli; total ${kb(modalTotal.gzip)} gzip / ${kb(modalTotal.brotli)} brotli`,
    `Target: initial ≤ ${kb(TARGET_INITIAL_GZIP)} gzip → ${report.target.met ? "met" : "NOT met"}`,
  ].join("\n"),
);
