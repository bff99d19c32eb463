/**
 * The tarballs as published: every path a manifest's `exports` names is in the tarball (no `source`
 * condition pointing at src/), and the service's production entry loads no dev code. The service was
 * installed with `npm install --omit=dev` (globalSetup): dev mode's `oidc-provider` is not there until
 * the developer adds it, and `latchkey serve --dev` says so.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { importGraph } from "./importGraph";

/** Every path an `exports` value names, with the conditions that lead to it. */
function exportTargets(value: unknown, conditions: string[] = []): { path: string; conditions: string[] }[] {
  if (typeof value === "string") return [{ path: value, conditions }];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    exportTargets(inner, key.startsWith(".") ? conditions : [...conditions, key]),
  );
}

describe("the published tarballs", () => {
  for (const [name, tarball] of Object.entries(inject("tarballs"))) {
    it(`${name}: its exports name only files the tarball ships, under no \`source\` condition`, () => {
      const files = new Set(
        execFileSync("tar", ["-tzf", tarball])
          .toString()
          .split("\n")
          .filter(Boolean)
          .map((f) => f.replace(/^package\//, "")),
      );
      const manifest = JSON.parse(
        execFileSync("tar", ["-xzOf", tarball, "package/package.json"]).toString(),
      ) as {
        exports: unknown;
        types?: string;
      };
      const targets = exportTargets(manifest.exports);
      expect(targets.length).toBeGreaterThan(0);
      expect(targets.filter((t) => t.conditions.includes("source"))).toEqual([]);
      const missing = [...targets.map((t) => t.path), ...(manifest.types ? [manifest.types] : [])].filter(
        (path) => !files.has(path.replace(/^\.\//, "")),
      );
      expect(missing).toEqual([]);
    });
  }
});

describe("@latchkey/server installed with --omit=dev", () => {
  const serverDir = () => join(inject("serviceDir"), "node_modules/@latchkey/server");

  it("has no oidc-provider until it is added for dev mode", () => {
    expect(inject("omitDevInstall").hadOidcProvider).toBe(false);
    // globalSetup then added it for the other files' `serve --dev`.
    expect(existsSync(join(inject("serviceDir"), "node_modules/oidc-provider/package.json"))).toBe(true);
  });

  it("`latchkey serve --dev` without it says what to install, and exits", () => {
    const { code, output } = inject("omitDevInstall").serveDevWithout;
    expect(code).toBe(1);
    expect(output).toContain("Dev mode needs oidc-provider");
    expect(output).toContain("npm i -D oidc-provider");
  });

  it("its main entry loads no dev code and no oidc-provider, static or dynamic", async () => {
    const graph = await importGraph(join(serverDir(), "dist/index.js"), { dynamic: true });
    expect(graph.files.length).toBeGreaterThan(1);
    expect(graph.packages).toContain("fastify");
    expect(graph.packages).not.toContain("oidc-provider");
    // The source maps name every file the loaded code was built from: none under src/dev/.
    expect(graph.sources.some((s) => s.includes("/src/createService.ts"))).toBe(true);
    expect(graph.sources.filter((s) => s.includes("/src/dev/"))).toEqual([]);
  });

  it("its dev entry is where the dev code is", async () => {
    const graph = await importGraph(join(serverDir(), "dist/dev.js"), { dynamic: true });
    expect(graph.packages).toContain("oidc-provider");
    expect(graph.sources.some((s) => s.includes("/src/dev/mailbox/routes.ts"))).toBe(true);
  });
});

/** The optional peers: only the entries an app imports to opt in may reach them (and their types name them). */
const OPTIONAL_PEER =
  /^(@wagmi\/core|@walletconnect\/.+|@solana\/kit|@wallet-standard\/.+|@solana\/wallet-standard-features)$/;

/** The packages a built .d.ts and the declaration chunks it imports name. */
function typePackages(entry: string): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*['"]([^'"]+)['"]/g)) {
      if (!specifier) continue;
      if (specifier.startsWith(".")) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, ".d.ts")));
      else
        packages.add(
          specifier
            .split("/")
            .slice(0, specifier.startsWith("@") ? 2 : 1)
            .join("/"),
        );
    }
  }
  return [...packages].sort();
}

describe("@latchkey/core's optional peers (WalletConnect, wagmi, Solana), as installed", () => {
  const pkg = (name: string) => join(inject("serviceDir"), "node_modules/@latchkey", name);

  it("npm leaves them out of a plain install", () => {
    // (@solana/kit is there: the service itself depends on it.)
    for (const name of ["@wagmi/core", "@walletconnect/universal-provider"])
      expect(existsSync(join(inject("serviceDir"), "node_modules", name, "package.json")), name).toBe(false);
  });

  it("core's and react's main entries load none, static or dynamic, and their types name none", async () => {
    for (const entry of [join(pkg("core"), "dist/index.js"), join(pkg("react"), "dist/index.js")]) {
      const graph = await importGraph(entry, { dynamic: true });
      expect(graph.packages).toContain(entry.includes("/core/") ? "viem" : "@latchkey/core");
      expect(graph.packages.filter((p) => OPTIONAL_PEER.test(p))).toEqual([]);
      expect(typePackages(entry.replace(/\.js$/, ".d.ts")).filter((p) => OPTIONAL_PEER.test(p))).toEqual([]);
    }
  });

  it("the entries an app imports to opt in load theirs", async () => {
    const reached = async (entry: string) =>
      (await importGraph(join(pkg("core"), entry), { dynamic: true })).packages.filter((p) =>
        OPTIONAL_PEER.test(p),
      );
    expect(await reached("dist/externalWallets/index.js")).toEqual(["@wagmi/core"]);
    expect(await reached("dist/externalWallets/walletConnect/index.js")).toEqual([
      "@wagmi/core",
      "@walletconnect/universal-provider",
    ]);
    expect(await reached("dist/solana/index.js")).toContain("@solana/kit");
  });
});
