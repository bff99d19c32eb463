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
