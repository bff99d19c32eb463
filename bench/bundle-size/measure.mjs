// Copied into the benchmark's throw-away app (bench/bundle-size.ts) and run there, so that vite and
// esbuild are the app's own, resolving the installed tarballs as any app would:
//   node measure.mjs <vite|esbuild> <entry.tsx> <outDir>
// Prints the build's JavaScript chunks as JSON: each file, whether it loads initially (the entry and
// its static imports, transitively), its raw/gzip/brotli bytes and its bytes per package.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const [tool, entry, outDir] = process.argv.slice(2);
const out = resolve(outDir);

/** The package a module comes from: `viem`, `@noble/curves`…; the app's own files are `app`. */
const packageOf = (id) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(id.replace(/^\0/, ""))?.[1] ?? "app";

const chunks = new Map(); // file → { entry, imports: [file], packages: {pkg: bytes} }

if (tool === "vite") {
  const { build } = await import("vite");
  const { default: react } = await import("@vitejs/plugin-react");
  await build({
    root: process.cwd(),
    configFile: false,
    logLevel: "error",
    plugins: [
      react(),
      {
        name: "chunk-contents",
        generateBundle(_options, bundle) {
          for (const chunk of Object.values(bundle)) {
            if (chunk.type !== "chunk") continue;
            const packages = {};
            for (const [id, info] of Object.entries(chunk.modules)) {
              packages[packageOf(id)] = (packages[packageOf(id)] ?? 0) + info.renderedLength;
            }
            chunks.set(chunk.fileName, { entry: chunk.isEntry, imports: chunk.imports, packages });
          }
        },
      },
    ],
    define: { "process.env.NODE_ENV": '"production"' },
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: true,
      target: "es2022",
      chunkSizeWarningLimit: 100_000,
      rollupOptions: { input: resolve(entry) },
    },
  });
} else if (tool === "esbuild") {
  const { build } = await import("esbuild");
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    minify: true,
    target: "es2022",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"', global: "globalThis" },
    outdir: out,
    metafile: true,
    logLevel: "error",
  });
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (!path.endsWith(".js")) continue;
    const packages = {};
    for (const [id, input] of Object.entries(output.inputs)) {
      packages[packageOf(id)] = (packages[packageOf(id)] ?? 0) + input.bytesInOutput;
    }
    chunks.set(resolve(path).slice(out.length + 1), {
      // Every import() target is an entry point too in the metafile: the page's entry is the one given.
      entry: output.entryPoint !== undefined && resolve(output.entryPoint) === resolve(entry),
      imports: output.imports
        .filter((i) => i.kind === "import-statement" && !i.external)
        .map((i) => resolve(i.path).slice(out.length + 1)),
      packages,
    });
  }
} else {
  throw new Error(`unknown tool ${tool}`);
}

const initial = new Set();
const visit = (file) => {
  if (initial.has(file) || !chunks.has(file)) return;
  initial.add(file);
  for (const i of chunks.get(file).imports) visit(i);
};
for (const [file, chunk] of chunks) if (chunk.entry) visit(file);

const files = [...chunks].map(([file, chunk]) => {
  const code = readFileSync(join(out, file));
  return {
    file,
    initial: initial.has(file),
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    packages: chunk.packages,
  };
});
process.stdout.write(JSON.stringify(files));
