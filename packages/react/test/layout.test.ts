import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The layout is the architecture (RESTRUCTURE P6): these keep it so.

const src = fileURLToPath(new URL("../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const imports = (path: string) =>
  [...readFileSync(path, "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1] as string);

describe("the react package's layout", () => {
  it("the step machine (flow/) and the input rules (ui/) are framework-free: no React, no views", () => {
    const offending = [...files(join(src, "flow")), ...files(join(src, "ui"))].flatMap((path) =>
      imports(path)
        .filter((spec) => /^react(-dom)?(\/|$)|\/(components|hooks|steps)\//.test(spec))
        .map((spec) => `${relative(src, path)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("no per-instance state kept at module level (WeakMaps keyed by signer or store): the flow holds it", () => {
    const offending = files(src)
      .filter((path) => /\bWeakMap\b/.test(readFileSync(path, "utf8")))
      .map((path) => relative(src, path));
    expect(offending).toEqual([]);
  });
});
