#!/usr/bin/env node
// A package's manifest as it is published. In the repository every export carries a `source` condition
// (its TypeScript, src/*.ts), which vitest, tsx, Vite and tsc resolve first; the tarball ships only dist/,
// so the published `exports` must not name src/. npm runs `prepack` before it packs or publishes and
// `postpack` after: `prepack` keeps the manifest aside and writes it without `source` conditions (and
// without src/ paths in `sideEffects`), after checking that every path left names a file the tarball
// ships; `postpack` puts the manifest back.
//
//   node ../../scripts/packManifest.js strip     (a package's prepack, run in the package's folder)
//   node ../../scripts/packManifest.js restore   (its postpack)
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.cwd();
const manifestPath = join(dir, "package.json");
// Beside the manifest, outside `files`: never packed.
const keptPath = join(dir, "package.json.repo");

/** `exports` without the `source` condition, at every depth. */
export function withoutSource(target) {
  if (target === null || typeof target !== "object") return target;
  if (Array.isArray(target)) return target.map(withoutSource);
  return Object.fromEntries(
    Object.entries(target)
      .filter(([condition]) => condition !== "source")
      .map(([condition, value]) => [condition, withoutSource(value)]),
  );
}

/** Every path an `exports` value names. */
export function exportPaths(target) {
  if (typeof target === "string") return [target];
  if (target === null || typeof target !== "object") return [];
  return Object.values(target).flatMap(exportPaths);
}

/** The manifest as published, and the paths in it that the tarball would not ship (should be none). */
export function publishedManifest(manifest, packageDir) {
  const published = { ...manifest };
  if (published.exports !== undefined) published.exports = withoutSource(published.exports);
  if (Array.isArray(published.sideEffects))
    published.sideEffects = published.sideEffects.filter((path) => !/^(\.\/)?src\//.test(path));
  const shipped = (path) => {
    const relative = normalize(path).replace(/^\.\//, "");
    if (relative === "package.json") return true;
    const inFiles = (published.files ?? []).some(
      (entry) => relative === normalize(entry) || relative.startsWith(`${normalize(entry)}/`),
    );
    return inFiles && existsSync(join(packageDir, relative));
  };
  const paths = [
    ...exportPaths(published.exports ?? {}),
    ...(typeof published.types === "string" ? [published.types] : []),
    ...(typeof published.main === "string" ? [published.main] : []),
  ];
  return { published, missing: paths.filter((path) => !path.includes("*") && !shipped(path)) };
}

function strip() {
  // A pack that died before its postpack left the repository's manifest aside: take it back first.
  if (existsSync(keptPath)) renameSync(keptPath, manifestPath);
  const text = readFileSync(manifestPath, "utf8");
  const { published, missing } = publishedManifest(JSON.parse(text), dir);
  if (missing.length > 0) {
    process.stderr.write(
      `${published.name}: the published manifest names files the tarball would not ship: ${missing.join(", ")} (run \`npm run build\` first)\n`,
    );
    process.exit(1);
  }
  copyFileSync(manifestPath, keptPath);
  writeFileSync(manifestPath, `${JSON.stringify(published, null, 2)}\n`);
}

function restore() {
  if (!existsSync(keptPath)) return;
  copyFileSync(keptPath, manifestPath);
  rmSync(keptPath);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const command = process.argv[2];
  if (command === "strip") strip();
  else if (command === "restore") restore();
  else {
    process.stderr.write("usage: packManifest.js strip|restore\n");
    process.exit(2);
  }
}
