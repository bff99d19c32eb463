/**
 * What the client bundles, checked with a real bundler (esbuild: tree-shaken, minified, ESM): the modal
 * and the core client ship no schema library and none of the server's code. The schemas stay on the
 * service; the client's route table (`signerRoutes`) is plain data. `bench/bundle-size` measures the bytes.
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundledPackages(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "browser",
    conditions: ["source"],
    metafile: true,
    external: ["react", "react-dom", "react/jsx-runtime"],
    logLevel: "silent",
  });
  const outputs = Object.values(result.metafile.outputs);
  // Modules tree-shaking removed entirely are listed with no bytes: only what is really shipped counts.
  const inputs = outputs.flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  return [
    ...new Set(
      inputs.map(
        (path) =>
          /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ??
          /packages\/([^/]+)\//.exec(path)?.[1]?.replace(/^/, "@latchkey/") ??
          path,
      ),
    ),
  ].sort();
}

describe("the client's bundle", () => {
  it("@latchkey/react holds no zod and no server code", async () => {
    const packages = await bundledPackages("../src/index.ts");
    expect(packages).toContain("@latchkey/core");
    expect(packages).not.toContain("zod");
    expect(packages).not.toContain("@latchkey/server");
  });

  it("@latchkey/core holds no zod and no server code", async () => {
    const packages = await bundledPackages("../../core/src/index.ts");
    expect(packages).toContain("@latchkey/protocol");
    expect(packages).not.toContain("zod");
    expect(packages).not.toContain("@latchkey/server");
  });
});
