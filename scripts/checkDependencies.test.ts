/**
 * Every package declares what its source imports at run time (dependencies, peer or optional), and
 * declares nothing it does not import: the tarballs install exactly what they need outside this
 * repository, where the root's node_modules is not there to hide a missing one.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const builtin = new Set(builtinModules);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/**
 * Imports that run only from a checkout of the repository, never from the built package: the server
 * bundles the auth frame's TypeScript with esbuild and loads its wallet worker through tsx when `src/`
 * is there (the tarball ships dist/ only). They are devDependencies.
 */
const SOURCE_ONLY: Record<string, string[]> = { server: ["esbuild", "tsx"] };

const packageName = (specifier: string) =>
  specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] as string);

describe("package dependencies", () => {
  for (const name of readdirSync(join(root, "packages"))) {
    const dir = join(root, "packages", name);
    it(`${name}: declares every runtime import and nothing else`, () => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<
        string,
        Record<string, string> | undefined
      >;
      const declared = new Set(
        ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((k) =>
          Object.keys(manifest[k] ?? {}),
        ),
      );
      const used = new Set<string>();
      for (const file of sourceFiles(join(dir, "src"))) {
        const text = readFileSync(file, "utf8");
        // Imports, and packages located at run time (`require.resolve("@latchkey/frames/package.json")`).
        const specifiers = [
          ...ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName),
          ...[...text.matchAll(/\bresolve\("([^"./][^"]*)"\)/g)].map((m) => m[1] as string),
        ];
        for (const specifier of specifiers) {
          if (specifier.startsWith(".") || specifier.startsWith("node:") || builtin.has(specifier)) continue;
          used.add(packageName(specifier));
        }
      }
      const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
      const sourceOnly = (p: string) => (SOURCE_ONLY[name] ?? []).includes(p) && dev.has(p);
      expect({ missing: [...used].filter((p) => !declared.has(p) && !sourceOnly(p)).sort() }).toEqual({
        missing: [],
      });
      // Peers the app provides (e.g. a form library the app may use beside ours) may go unimported.
      const peers = new Set(Object.keys(manifest.peerDependencies ?? {}));
      expect({ unused: [...declared].filter((p) => !used.has(p) && !peers.has(p)).sort() }).toEqual({
        unused: [],
      });
    });
  }
});
