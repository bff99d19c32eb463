import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { toHex, uncompressP256PublicKey } from "@latchkey/protocol";
import { SHARE_KEY_META } from "@latchkey/protocol/custody";
import { ALLOWED_ORIGINS_META, EXPORT_SIGNER_META, IMPORT_SIGNER_META } from "@latchkey/protocol/frame";
import { hasControlCharacter } from "@latchkey/protocol/schemas";
import type { FastifyReply, FastifyRequest } from "fastify";
import { shareKeyHex } from "../../custody/shareKey";
import { defineFeature } from "../defineFeature";

// The frame's script comes from @latchkey/frames: its built, self-contained `dist/auth.js` when the
// package is installed, or, in a checkout of the repository, its TypeScript bundled once per process on
// first use. Either way it is one inline script whose hash is the page's only script-src.
const FRAMES_DIR = dirname(createRequire(import.meta.url).resolve("@latchkey/frames/package.json"));
// An origin, or a loopback any-port entry (`http://localhost:*`, which CSP's frame-ancestors also reads).
const ORIGIN = /^https?:\/\/[A-Za-z0-9.\-[\]:]+(?::\*)?$/;

interface BuiltScript {
  js: string;
  hash: string;
}
type FrameName = "auth" | "export" | "import";
const scripts = new Map<FrameName, Promise<BuiltScript>>();

async function frameSource(name: FrameName): Promise<string> {
  const source = join(FRAMES_DIR, `src/${name}.ts`);
  if (!existsSync(source)) return readFileSync(join(FRAMES_DIR, `dist/${name}.js`), "utf8");
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [source],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    conditions: ["source"],
    target: "es2022",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}

async function buildScript(name: FrameName): Promise<BuiltScript> {
  const text = await frameSource(name);
  // Inline in HTML: nothing in the script may end the element or open a comment.
  const js = text.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  return { js, hash: createHash("sha256").update(js, "utf8").digest("base64") };
}

function getScript(name: FrameName): Promise<BuiltScript> {
  let script = scripts.get(name);
  if (!script) {
    script = buildScript(name).catch((e) => {
      scripts.delete(name);
      throw e;
    });
    scripts.set(name, script);
  }
  return script;
}

// The export frame's only style, allowed by its hash (no inline style attributes, no 'unsafe-inline').
const EXPORT_STYLE = [
  "body{margin:0;padding:12px;font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff}",
  "h1{font-size:15px;margin:0 0 10px}h2{font-size:13px;margin:10px 0 4px}",
  ".words{display:grid;grid-template-columns:repeat(3,1fr);gap:6px;list-style:none;margin:0;padding:0}",
  ".words li{border:1px solid #ddd;border-radius:6px;padding:4px 6px;font-family:ui-monospace,monospace}",
  ".n{color:#888;margin-right:6px;user-select:none}",
  "button{margin-top:10px;padding:6px 10px;border:1px solid #bbb;border-radius:6px;background:#f6f6f6;cursor:pointer}",
  "code{display:block;word-break:break-all;font-size:12px;background:#f6f6f6;padding:6px;border-radius:6px}",
  ".error{color:#b00020}",
  "@media (prefers-color-scheme:dark){body{color:#eee;background:#1c1c1e}.words li{border-color:#444}",
  "button,code{background:#2c2c2e;color:#eee;border-color:#555}}",
].join("");
const EXPORT_STYLE_HASH = createHash("sha256").update(EXPORT_STYLE, "utf8").digest("base64");

// The import frame's only style, allowed by its hash like the export frame's.
const IMPORT_STYLE = [
  "body{margin:0;padding:12px;font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff}",
  "label{display:block;font-weight:600;margin:0 0 6px}",
  "textarea{box-sizing:border-box;width:100%;min-height:96px;padding:8px;border:1px solid #bbb;border-radius:6px;",
  "font:13px/1.4 ui-monospace,monospace;resize:vertical}",
  ".error{color:#b00020;margin:8px 0 0}",
  "@media (prefers-color-scheme:dark){body{color:#eee;background:#1c1c1e}textarea{background:#2c2c2e;color:#eee;",
  "border-color:#555}}",
].join("");
const IMPORT_STYLE_HASH = createHash("sha256").update(IMPORT_STYLE, "utf8").digest("base64");

// The auth frame's only style (its confirmation step, issue 46), allowed by its hash like the others'.
// The page is transparent until a confirmation is drawn over a dimmed backdrop.
const AUTH_STYLE = [
  "html,body{margin:0;background:transparent;font:14px/1.4 system-ui,sans-serif;color:#111}",
  ".lk-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;",
  "justify-content:center}",
  ".lk-dialog{box-sizing:border-box;width:368px;max-width:calc(100vw - 24px);max-height:calc(100vh - 24px);",
  "overflow:auto;background:#fff;border-radius:16px;padding:20px;box-shadow:0 8px 32px rgba(0,0,0,.3)}",
  "h1{font-size:17px;margin:0 0 4px}h2{font-size:14px;margin:12px 0 4px}",
  ".lk-origin{color:#666;font-size:12px;margin:0 0 12px;word-break:break-all}",
  ".lk-lines{margin:0;padding-left:18px}.lk-nested{margin-left:14px}",
  ".lk-warning{color:#b00020;font-weight:600;margin:8px 0}.lk-sim{margin:2px 0}",
  ".lk-actions{display:flex;gap:8px;margin-top:16px}",
  ".lk-actions button{flex:1;padding:10px;border-radius:10px;font:inherit;cursor:pointer;border:1px solid #bbb;",
  "background:#f6f6f6;color:#111}",
  ".lk-actions .lk-confirm{background:#111;color:#fff;border-color:#111}",
  ".lk-actions button:disabled{opacity:.5;cursor:default}",
  "@media (prefers-color-scheme:dark){.lk-dialog{background:#1c1c1e;color:#eee}",
  ".lk-actions button{background:#2c2c2e;color:#eee;border-color:#555}",
  ".lk-actions .lk-confirm{background:#eee;color:#111}}",
].join("");
const AUTH_STYLE_HASH = createHash("sha256").update(AUTH_STYLE, "utf8").digest("base64");

const escapeAttr = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * GET /frames/auth: the auth iframe (DESIGN §2); GET /frames/export: the export frame (DESIGN §9). `?appId=`
 * narrows `frame-ancestors` (and the origins the frame accepts a channel from) to that app's allowed origins;
 * without it, every app's. Strict CSP: the inline script and stylesheet by hash, nothing else; no network
 * but the auth frame's own origin (its confirmation step: `preview_signing` and its confirmation key).
 */
export const framesFeature = defineFeature({
  name: "frames",
  register(app, ctx) {
    app.addHook("onReady", async () => {
      // Warm the build so the first frame load is quick; a failure is reported on the request instead.
      getScript("auth").catch(() => {});
    });

    /** The frame-ancestors of a frame page: `?appId=`'s allowed origins, or every app's; null: answered. */
    async function frameOrigins(
      req: FastifyRequest<{ Querystring: { appId?: string } }>,
      reply: FastifyReply,
    ): Promise<string[] | null> {
      const appId = typeof req.query.appId === "string" ? req.query.appId : undefined;
      if (appId !== undefined && (appId.length > 128 || hasControlCharacter(appId))) {
        await reply.code(400).type("text/plain; charset=utf-8").send("Invalid appId");
        return null;
      }
      let origins: string[];
      if (appId) {
        const found = await ctx.apps.byId(appId);
        if (!found) {
          await reply.code(404).type("text/plain; charset=utf-8").send("Unknown app");
          return null;
        }
        origins = found.allowedOrigins;
      } else {
        origins = [...(await ctx.apps.allOrigins())];
      }
      return origins.filter((o) => ORIGIN.test(o));
    }

    const shareKeyMeta = async () => `<meta name="${SHARE_KEY_META}" content="${await shareKeyHex(ctx)}">`;

    function sendFrame(
      reply: FastifyReply,
      page: {
        origins: string[];
        script: BuiltScript;
        meta: string;
        style?: { css: string; hash: string };
        /** The auth frame asks its own service what a request does, and registers its confirmation key. */
        connectSelf?: boolean;
      },
    ) {
      const { origins, script, meta, style } = page;
      const csp = [
        "default-src 'none'",
        `script-src 'sha256-${script.hash}'`,
        ...(style ? [`style-src 'sha256-${style.hash}'`] : []),
        page.connectSelf ? "connect-src 'self'" : "connect-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        `frame-ancestors ${origins.length ? origins.join(" ") : "'none'"}`,
      ].join("; ");
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="${ALLOWED_ORIGINS_META}" content="${escapeAttr(JSON.stringify(origins))}">${meta}<title>Latchkey</title>${style ? `<style>${style.css}</style>` : ""}</head><body><script>${script.js}</script></body></html>`;
      return reply
        .header("content-security-policy", csp)
        .header("cache-control", "no-store")
        .header("x-content-type-options", "nosniff")
        .header("referrer-policy", "no-referrer")
        .type("text/html; charset=utf-8")
        .send(html);
    }

    app.get(
      "/frames/auth",
      async (req: FastifyRequest<{ Querystring: { appId?: string } }>, reply: FastifyReply) => {
        const origins = await frameOrigins(req, reply);
        if (!origins) return reply;
        // Split custody: the share key the auth frame's key holder seals user shares to (its own page's).
        return sendFrame(reply, {
          origins,
          script: await getScript("auth"),
          meta: await shareKeyMeta(),
          style: { css: AUTH_STYLE, hash: AUTH_STYLE_HASH },
          // Enforced confirmations (issue 46): preview_signing and the confirmation key, same origin only.
          connectSelf: true,
        });
      },
    );

    // GET /frames/export: the export frame (DESIGN §9 "Export"). It pins the service's export-signing
    // key, made on first use, and refuses a bundle signed by any other.
    app.get(
      "/frames/export",
      async (req: FastifyRequest<{ Querystring: { appId?: string } }>, reply: FastifyReply) => {
        const origins = await frameOrigins(req, reply);
        if (!origins) return reply;
        const signer = toHex(uncompressP256PublicKey(await ctx.serviceKeys.publicKey("exportSigner")));
        return sendFrame(reply, {
          origins,
          script: await getScript("export"),
          meta: `<meta name="${EXPORT_SIGNER_META}" content="${signer}">${await shareKeyMeta()}`,
          style: { css: EXPORT_STYLE, hash: EXPORT_STYLE_HASH },
        });
      },
    );

    // GET /frames/import: the import frame, the mirror of the export frame. It pins the service's
    // import-signing key and seals what the user types only to an import key that key signed.
    app.get(
      "/frames/import",
      async (req: FastifyRequest<{ Querystring: { appId?: string } }>, reply: FastifyReply) => {
        const origins = await frameOrigins(req, reply);
        if (!origins) return reply;
        const signer = toHex(uncompressP256PublicKey(await ctx.serviceKeys.publicKey("importSigner")));
        return sendFrame(reply, {
          origins,
          script: await getScript("import"),
          meta: `<meta name="${IMPORT_SIGNER_META}" content="${signer}">`,
          style: { css: IMPORT_STYLE, hash: IMPORT_STYLE_HASH },
        });
      },
    );
  },
});
