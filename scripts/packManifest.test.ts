/**
 * The manifest a package is packed and published with (scripts/packManifest.js, each package's prepack and
 * postpack): no `source` condition, only paths the tarball ships, and the repository's manifest back after.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve(import.meta.dirname, "packManifest.js");
const REPO = resolve(import.meta.dirname, "..");

const manifest = {
  name: "@latchkey/example",
  version: "0.1.0",
  type: "module",
  sideEffects: ["./dist/auth.js", "./src/auth.ts"],
  exports: {
    ".": { source: "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" },
    "./sub": { source: "./src/sub.ts", types: "./dist/sub.d.ts", import: "./dist/sub.js" },
    "./auth.js": "./dist/auth.js",
  },
  types: "./dist/index.d.ts",
  files: ["dist", "README.md"],
};

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function packageDir(built: string[]): string {
  dir = mkdtempSync(join(tmpdir(), "latchkey-pack-manifest-"));
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(join(dir, "dist"));
  mkdirSync(join(dir, "src"));
  for (const file of built) writeFileSync(join(dir, file), "export {};\n");
  return dir;
}

const run = (command: string, cwd: string) =>
  spawnSync(process.execPath, [SCRIPT, command], { cwd, encoding: "utf8" });
const read = (cwd: string) => JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"));

describe("the packed manifest", () => {
  it("drops every `source` condition and src/ side effect, then puts the repository's manifest back", () => {
    const cwd = packageDir([
      "dist/index.js",
      "dist/index.d.ts",
      "dist/sub.js",
      "dist/sub.d.ts",
      "dist/auth.js",
    ]);
    const before = readFileSync(join(cwd, "package.json"), "utf8");
    expect(run("strip", cwd).status).toBe(0);
    const packed = read(cwd);
    expect(packed.exports).toEqual({
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./sub": { types: "./dist/sub.d.ts", import: "./dist/sub.js" },
      "./auth.js": "./dist/auth.js",
    });
    expect(packed.sideEffects).toEqual(["./dist/auth.js"]);
    expect(run("restore", cwd).status).toBe(0);
    expect(readFileSync(join(cwd, "package.json"), "utf8")).toBe(before);
    expect(existsSync(join(cwd, "package.json.repo"))).toBe(false);
  });

  it("refuses to pack a manifest that names a file the tarball would not ship, and changes nothing", () => {
    const cwd = packageDir(["dist/index.js", "dist/index.d.ts", "dist/auth.js"]);
    const before = readFileSync(join(cwd, "package.json"), "utf8");
    const result = run("strip", cwd);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("./dist/sub.d.ts, ./dist/sub.js");
    expect(result.stderr).toContain("npm run build");
    expect(readFileSync(join(cwd, "package.json"), "utf8")).toBe(before);
  });

  it("takes back the repository's manifest a pack that died left aside", () => {
    const cwd = packageDir([
      "dist/index.js",
      "dist/index.d.ts",
      "dist/sub.js",
      "dist/sub.d.ts",
      "dist/auth.js",
    ]);
    const before = readFileSync(join(cwd, "package.json"), "utf8");
    expect(run("strip", cwd).status).toBe(0);
    // No postpack: the next pack starts from the repository's manifest, not the stripped one.
    expect(run("strip", cwd).status).toBe(0);
    expect(run("restore", cwd).status).toBe(0);
    expect(readFileSync(join(cwd, "package.json"), "utf8")).toBe(before);
  });

  it("is every package's prepack and postpack", () => {
    for (const name of ["protocol", "decoder", "keystore", "frames", "core", "react", "server"]) {
      const scripts = read(join(REPO, "packages", name)).scripts;
      expect(scripts.prepack, name).toBe("node ../../scripts/packManifest.js strip");
      expect(scripts.postpack, name).toBe("node ../../scripts/packManifest.js restore");
    }
  });
});
