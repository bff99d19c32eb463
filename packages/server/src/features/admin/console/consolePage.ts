import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// The console's script and stylesheet come from @latchkey/console: its built `dist/console.js` and
// `dist/console.css` when the package is installed, or, in a checkout of the repository, its TypeScript
// bundled once per process on first use (as the frames are: features/frames/routes.ts).
const CONSOLE_DIR = dirname(createRequire(import.meta.url).resolve("@latchkey/console/package.json"));

export interface ConsoleAsset {
  /** The URL path under /admin/assets/, named by its content (cached for good). */
  name: string;
  type: string;
  body: Buffer;
}

export interface ConsoleAssets {
  script: ConsoleAsset;
  style: ConsoleAsset;
  /** The page every console path answers with: it loads the two assets, nothing inline. */
  html: string;
}

async function sources(): Promise<{ js: Buffer; css: Buffer }> {
  const entry = join(CONSOLE_DIR, "src/main.tsx");
  if (!existsSync(entry)) {
    return {
      js: readFileSync(join(CONSOLE_DIR, "dist/console.js")),
      css: readFileSync(join(CONSOLE_DIR, "dist/console.css")),
    };
  }
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: { console: entry },
    bundle: true,
    write: false,
    outdir: "/console",
    format: "iife",
    platform: "browser",
    conditions: ["source"],
    target: "es2022",
    jsx: "automatic",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
  const file = (ext: string) =>
    Buffer.from(result.outputFiles.find((f) => f.path.endsWith(ext))?.contents ?? new Uint8Array());
  return { js: file(".js"), css: file(".css") };
}

function asset(stem: string, ext: "js" | "css", body: Buffer): ConsoleAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return {
    name: `${stem}-${hash}.${ext}`,
    type: ext === "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
    body,
  };
}

async function load(): Promise<ConsoleAssets> {
  const { js, css } = await sources();
  const script = asset("console", "js", js);
  const style = asset("console", "css", css);
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex"><title>Latchkey console</title>' +
    `<link rel="stylesheet" href="/admin/assets/${style.name}">` +
    `<script defer src="/admin/assets/${script.name}"></script>` +
    '</head><body><div id="root"></div></body></html>';
  return { script, style, html };
}

let loading: Promise<ConsoleAssets> | undefined;

/** The console's page and assets, built or read once per process (a failure is retried next time). */
export function consoleAssets(): Promise<ConsoleAssets> {
  loading ??= load().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/**
 * The console's Content-Security-Policy: its own script and stylesheet only (nothing inline, no eval),
 * requests to its own origin only, never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
