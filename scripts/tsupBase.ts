import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Options } from "tsup";

/**
 * What every package's build shares: ESM for ES2022 with .d.ts and source maps, split into shared chunks.
 * The repository runs the TypeScript itself (the `source` export condition); the build is what the
 * tarballs ship, and the consumer tests (consumer/) prove it installs and runs outside the repository.
 */
export const packageBuild = (entry: Record<string, string>, extra: Options = {}): Options => ({
  entry,
  format: ["esm"],
  target: "es2022",
  dts: true,
  tsconfig: "../../tsconfig.build.json",
  sourcemap: true,
  clean: true,
  splitting: true,
  ...extra,
});

/** A relative import's built path: `./rules` → `./rules.js`, `./transitions` → `./transitions/index.js`. */
const builtPath = (resolveDir: string, path: string): string | undefined => {
  const base = resolve(resolveDir, path);
  for (const [source, built] of [
    [".ts", ".js"],
    [".tsx", ".js"],
    ["/index.ts", "/index.js"],
    ["/index.tsx", "/index.js"],
  ] as const) {
    if (existsSync(base + source)) return path + built;
  }
  return undefined;
};

/**
 * The build of a package an app bundles (protocol, keystore, core, react): one file per source module,
 * as `src/` is (dist/x/y.js from src/x/y.ts), and only the public entries get .d.ts. A bundled build
 * merged modules into shared chunks, and a chunk is one module to the app's bundler: code only the lazy
 * modal or a signing path needs (viem, the curves, HPKE) then came with the eager code it shared a chunk
 * with, and `sideEffects: false` could no longer drop a module the app does not use. Module by module,
 * the app's bundler splits the tarball's code exactly as it splits the source (bench/bundle-size.ts).
 */
export const modulesBuild = (publicEntries: Record<string, string>, extra: Options = {}): Options => ({
  entry: ["src/**/*.ts", "src/**/*.tsx", "!src/**/*.test.ts", "!src/**/*.test.tsx", "!src/**/*.d.ts"],
  format: ["esm"],
  target: "es2022",
  dts: { entry: publicEntries },
  tsconfig: "../../tsconfig.build.json",
  sourcemap: true,
  clean: true,
  splitting: false,
  esbuildPlugins: [
    {
      name: "keep-modules",
      setup(build) {
        // Every relative import stays an import of the sibling's own built file.
        build.onResolve({ filter: /^\.\.?(\/|$)/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          const path = builtPath(args.resolveDir, args.path);
          return path ? { path, external: true } : undefined;
        });
      },
    },
  ],
  ...extra,
});
