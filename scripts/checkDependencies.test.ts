/**
 * Every package declares what its source imports at run time (dependencies, peer or optional), and
 * declares nothing it does not import: the tarballs install exactly what they need outside this
 * repository, where the root's node_modules is not there to hide a missing one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
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
const SOURCE_ONLY: Record<string, string[]> = {
  server: ["esbuild", "tsx"],
  devnet: ["solc"],
  // The console's tarball is its built page (dist/console.js, .css, everything bundled in): what its
  // source imports is needed to build it, never at run time.
  console: ["@latchkey/protocol", "@simplewebauthn/browser", "react", "react-dom", "uplot"],
};
/** devnet's only source-only import, solc (it recompiles the committed contract artifacts), is the repository's. */
const rootDev = new Set(
  Object.keys(
    (
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
        devDependencies?: Record<string, string>;
      }
    ).devDependencies ?? {},
  ),
);

/** The source file a relative import names (`./x` → `./x.ts`), if it is one. */
function bundledFile(path: string): string | undefined {
  const candidates = [path, `${path}.ts`, `${path}.tsx`, join(path, "index.ts")];
  if (path.endsWith(".js")) candidates.push(path.replace(/\.js$/, ".ts"));
  return candidates.find(
    (p) => /\.(ts|tsx|mjs)$/.test(p) && !/\.test\.tsx?$/.test(p) && existsSync(p) && statSync(p).isFile(),
  );
}

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
      // A package's build may bundle repository files it imports by relative path (devnet bundles
      // test-support/): their imports are the package's runtime imports too.
      const queue = sourceFiles(join(dir, "src"));
      const seen = new Set(queue);
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        const text = readFileSync(file, "utf8");
        // Imports, and packages located at run time (`require.resolve("@latchkey/frames/package.json")`).
        const specifiers = [
          ...ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName),
          ...[...text.matchAll(/\bresolve\(\s*["`]([^"`./][^"`$]*)/g)].map((m) => m[1] as string),
        ];
        for (const specifier of specifiers) {
          if (specifier.startsWith(".")) {
            const target = bundledFile(resolve(dirname(file), specifier));
            if (target && !target.startsWith(`${dir}/`) && !seen.has(target)) {
              seen.add(target);
              queue.push(target);
            }
            continue;
          }
          if (specifier.startsWith("node:") || builtin.has(specifier)) continue;
          used.add(packageName(specifier));
        }
      }
      const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
      const sourceOnly = (p: string) =>
        (SOURCE_ONLY[name] ?? []).includes(p) && (dev.has(p) || rootDev.has(p));
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
