import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { buildImportGraph, findCycles } from "./checkCycles.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "latchkey-cycles-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function cyclesIn(root: string): string[][] {
  return findCycles(buildImportGraph(root)).map((cycle) => cycle.map((file) => relative(root, file)));
}

describe("findCycles", () => {
  it("finds no cycle in a tree", () => {
    const graph = new Map([
      ["a", ["b", "c"]],
      ["b", ["c"]],
      ["c", []],
    ]);
    expect(findCycles(graph)).toEqual([]);
  });

  it("names the shortest loop of each cycle, starting and ending at the same file", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", ["e"]],
      ["e", ["d"]],
      ["f", ["f"]],
    ]);
    const cycles = findCycles(graph).sort((x, y) => x[0]!.localeCompare(y[0]!));
    expect(cycles).toEqual([
      ["a", "b", "c", "a"],
      ["d", "e", "d"],
      ["f", "f"],
    ]);
  });
});

describe("buildImportGraph", () => {
  const manifest = (name: string, exports: unknown) => JSON.stringify({ name, exports });

  it("finds a cycle through relative imports, type-only imports and re-exports", () => {
    const root = tree({
      "packages/one/package.json": manifest("@latchkey/one", { ".": "./src/index.ts" }),
      "packages/one/src/index.ts": 'export * from "./a.js";\n',
      "packages/one/src/a.ts": 'import type { B } from "./dir";\nexport type A = B;\n',
      "packages/one/src/dir/index.ts": 'import { a } from "../a.js";\nexport type B = typeof a;\n',
    });
    expect(cyclesIn(root)).toEqual([
      ["packages/one/src/a.ts", "packages/one/src/dir/index.ts", "packages/one/src/a.ts"],
    ]);
  });

  it("finds a cycle across two packages through their exports maps, subpaths and built paths included", () => {
    const root = tree({
      "packages/one/package.json": manifest("@latchkey/one", {
        ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      }),
      "packages/one/src/index.ts": 'import "@latchkey/two/sub";\n',
      "packages/two/package.json": manifest("@latchkey/two", {
        ".": "./src/index.ts",
        "./sub": "./src/sub.ts",
      }),
      "packages/two/src/index.ts": "export {};\n",
      "packages/two/src/sub.ts": 'export { x } from "@latchkey/one";\n',
    });
    expect(cyclesIn(root)).toEqual([
      ["packages/one/src/index.ts", "packages/two/src/sub.ts", "packages/one/src/index.ts"],
    ]);
  });

  it("ignores outside packages and test files outside src", () => {
    const root = tree({
      "packages/one/package.json": manifest("@latchkey/one", { ".": "./src/index.ts" }),
      "packages/one/src/index.ts": 'import "zod";\nimport "node:fs";\n',
      "packages/one/test/x.test.ts": 'import "../src/index.js";\n',
    });
    expect(cyclesIn(root)).toEqual([]);
  });

  it("holds for this repository: no package's source has an import cycle", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
    const graph = buildImportGraph(root);
    // The graph is real: hundreds of files, most of them importing something.
    expect(graph.size).toBeGreaterThan(200);
    expect([...graph.values()].filter((edges) => edges.length > 0).length).toBeGreaterThan(150);
    expect(cyclesIn(root)).toEqual([]);
  });
});
