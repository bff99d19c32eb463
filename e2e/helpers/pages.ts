import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { build, defaultClientConditions } from "vite";

// The e2e pages, built for production with Vite. Their builds are the same for every test file (what differs
// per stack, the service's URL, the dev app's key, the chain, comes in at run time: `window.LK_E2E`, and for
// the demo `window.LK_DEMO_ENV`), so a run builds each page once: the global setup (pageServer.ts) builds
// them in vitest's main process on first request and every file serves the same folder.

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * A page: `demo` (apps/demo), `host` (e2e/host, its config from the query string), `host-development` (the
 * host built as `vite` serves it, `process.env.NODE_ENV` "development"), `wagmi`, `rainbowkit`.
 */
export type PageName = "demo" | "host" | "host-development" | "wagmi" | "rainbowkit";
export const PAGE_NAMES: readonly PageName[] = ["demo", "host", "host-development", "wagmi", "rainbowkit"];

/**
 * The demo's build-time settings (`import.meta.env.VITE_LATCHKEY_*`), read instead from `window.LK_DEMO_ENV`
 * at run time: one build serves every stack (each has its own service, chain and Solana node).
 */
export const DEMO_ENV_KEYS = [
  "VITE_LATCHKEY_URL",
  "VITE_LATCHKEY_API_KEY",
  "VITE_LATCHKEY_MAILBOX",
  "VITE_LATCHKEY_CHAIN",
  "VITE_LATCHKEY_WALLETS",
  "VITE_LATCHKEY_SOLANA",
] as const;
export type DemoEnv = Partial<Record<(typeof DEMO_ENV_KEYS)[number], string>>;

/** Builds the page `name` into `outDir` (emptied first). */
export async function buildPage(name: PageName, outDir: string): Promise<void> {
  if (name === "demo") {
    await build({
      root: join(root, "apps/demo"),
      configFile: join(root, "apps/demo/vite.config.ts"),
      define: Object.fromEntries(
        DEMO_ENV_KEYS.map((key) => [`import.meta.env.${key}`, `globalThis.LK_DEMO_ENV.${key}`]),
      ),
      build: { outDir, emptyOutDir: true },
      logLevel: "warn",
    });
    return;
  }
  const [app, nodeEnv] = name === "host-development" ? ["host", "development"] : [name, undefined];
  await build({
    root: join(root, "e2e", app),
    configFile: false,
    plugins: [react()],
    resolve: { conditions: ["source", ...defaultClientConditions] },
    // WalletConnect's own test switch (read at run time from the page's `process.env`, which the
    // WalletConnect tests set in an init script): no calls to verify.walletconnect.org, which would wait
    // 5 s per request offline. Vite would otherwise replace `process.env` by `{}`.
    define: {
      "process.env.IS_VITEST": "globalThis.process.env.IS_VITEST",
      ...(nodeEnv ? { "process.env.NODE_ENV": JSON.stringify(nodeEnv) } : {}),
    },
    build: { outDir, emptyOutDir: true },
    logLevel: "warn",
  });
}

/**
 * The folder holding the built page `name`: the run's shared build (LATCHKEY_E2E_PAGES, the global setup's
 * page server), or, in a run without that setup, a build of its own into `fallbackDir`.
 */
export async function pageDir(name: PageName, fallbackDir: string): Promise<string> {
  const server = process.env.LATCHKEY_E2E_PAGES;
  if (!server) {
    await buildPage(name, fallbackDir);
    return fallbackDir;
  }
  const res = await fetch(`${server}/${name}`);
  const text = await res.text();
  if (!res.ok) throw new Error(`building the e2e page ${name} failed:\n${text}`);
  if (!existsSync(join(text, "index.html"))) throw new Error(`no e2e page ${name} at ${text}`);
  return text;
}
