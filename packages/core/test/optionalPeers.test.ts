/**
 * The optional peers (@wagmi/core, WalletConnect's client, @solana/kit) are reached only from the entries
 * that need them, which an app imports to opt in: never from the main entry of @latchkey/core or
 * @latchkey/react, not by `import()` (a bundler resolves those too: Next.js fails with "Module not found"
 * for a peer that is not installed) and not by `import type` (an app's `tsc` reads our .d.ts). The
 * consumer tests check the same on the built tarballs (consumer/packages.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** `@latchkey/<pkg>[/sub]` → its source file, through the package's `exports` (`source` condition). */
function resolveLatchkey(specifier: string): string {
  const [, name, sub] = /^@latchkey\/([^/]+)(\/.*)?$/.exec(specifier) ?? [];
  const dir = join(root, "packages", name as string);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    exports: Record<string, { source: string }>;
  };
  const target = manifest.exports[`.${sub ?? ""}`];
  if (!target) throw new Error(`${specifier} is not exported`);
  return join(dir, target.source);
}

function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  const found = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")].find(
    existsSync,
  );
  if (!found) throw new Error(`${specifier} from ${from} does not resolve`);
  return found;
}

/** Every package an entry reaches through our own files: imports, type imports and `import()` alike. */
function packagesReached(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [resolve(root, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith(".")) queue.push(resolveRelative(file, specifier));
      else if (specifier.startsWith("@latchkey/")) queue.push(resolveLatchkey(specifier));
      else
        packages.add(
          specifier
            .split("/")
            .slice(0, specifier.startsWith("@") ? 2 : 1)
            .join("/"),
        );
    }
  }
  return packages;
}

const OPTIONAL = /^(@wagmi\/core|@walletconnect\/.+|@solana\/.+|@wallet-standard\/.+)$/;
const optionalIn = (entry: string) => [...packagesReached(entry)].filter((p) => OPTIONAL.test(p)).sort();

describe("optional peers", () => {
  it("the main entries of @latchkey/core and @latchkey/react reach none", () => {
    expect(optionalIn("packages/core/src/index.ts")).toEqual([]);
    expect(optionalIn("packages/react/src/index.ts")).toEqual([]);
    expect(packagesReached("packages/core/src/index.ts")).toContain("viem");
  });

  it("each opt-in entry reaches its own, and no other's", () => {
    expect(optionalIn("packages/core/src/externalWallets/index.ts")).toEqual(["@wagmi/core"]);
    expect(optionalIn("packages/core/src/externalWallets/walletConnect/index.ts")).toEqual([
      "@wagmi/core",
      "@walletconnect/universal-provider",
    ]);
    expect(optionalIn("packages/core/src/solana/index.ts")).toEqual([
      "@solana/kit",
      "@solana/wallet-standard-features",
      "@wallet-standard/base",
      "@wallet-standard/features",
      "@wallet-standard/wallet",
    ]);
    expect(optionalIn("packages/core/src/wagmi.ts")).toEqual(["@wagmi/core"]);
  });
});
