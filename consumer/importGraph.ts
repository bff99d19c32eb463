import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { build } from "esbuild";

export interface ImportGraph {
  /** The package's own files the entry loads (absolute paths). */
  files: string[];
  /** The packages it imports (`viem`, `@solana/kit`, `node:fs`). */
  packages: string[];
  /** The source files (from the files' source maps) the loaded code was built from, as the maps name them. */
  sources: string[];
}

const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * What an installed package's built entry loads: its own files, reached through `import` statements (and,
 * with `dynamic`, `import()` too), the packages those import, and the sources the files were built from.
 * esbuild reads the graph (every package stays external); nothing is run.
 */
export async function importGraph(entry: string, opts: { dynamic: boolean }): Promise<ImportGraph> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: dirname(entry),
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "silent",
  });
  const inputs = result.metafile.inputs;
  const root = dirname(entry);
  const key = (file: string) => Object.keys(inputs).find((k) => resolve(root, k) === file);
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const input = inputs[key(file) ?? ""];
    if (!input) throw new Error(`esbuild did not read ${file}`);
    for (const edge of input.imports) {
      if (edge.kind !== "import-statement" && !(opts.dynamic && edge.kind === "dynamic-import")) continue;
      if (edge.external) packages.add(packageOf(edge.path));
      else visit(resolve(root, edge.path));
    }
  };
  visit(resolve(entry));
  const sources = new Set<string>();
  for (const file of files) {
    const map = `${file}.map`;
    if (!existsSync(map)) continue;
    for (const source of (JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources)
      sources.add(source);
  }
  return { files: [...files], packages: [...packages].sort(), sources: [...sources].sort() };
}
