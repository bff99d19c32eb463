import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ALLOWED_ORIGINS_META } from "@latchkey/protocol/frame";
import { hasControlCharacter } from "@latchkey/protocol/schemas";
import type { FastifyReply, FastifyRequest } from "fastify";
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
let authScript: Promise<BuiltScript> | undefined;

async function frameSource(): Promise<string> {
  const source = join(FRAMES_DIR, "src/auth.ts");
  if (!existsSync(source)) return readFileSync(join(FRAMES_DIR, "dist/auth.js"), "utf8");
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

async function buildAuthScript(): Promise<BuiltScript> {
  const text = await frameSource();
  // Inline in HTML: nothing in the script may end the element or open a comment.
  const js = text.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  return { js, hash: createHash("sha256").update(js, "utf8").digest("base64") };
}

function getAuthScript(): Promise<BuiltScript> {
  authScript ??= buildAuthScript().catch((e) => {
    authScript = undefined;
    throw e;
  });
  return authScript;
}

const escapeAttr = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * GET /frames/auth: the auth iframe (DESIGN §2). `?appId=` narrows `frame-ancestors` (and the origins the
 * frame accepts a channel from) to that app's allowed origins; without it, every app's. Strict CSP: the
 * inline script by hash, nothing else, no network.
 */
export const framesFeature = defineFeature({
  name: "frames",
  register(app, ctx) {
    app.addHook("onReady", async () => {
      // Warm the build so the first frame load is quick; a failure is reported on the request instead.
      getAuthScript().catch(() => {});
    });

    app.get(
      "/frames/auth",
      async (req: FastifyRequest<{ Querystring: { appId?: string } }>, reply: FastifyReply) => {
        const appId = typeof req.query.appId === "string" ? req.query.appId : undefined;
        if (appId !== undefined && (appId.length > 128 || hasControlCharacter(appId))) {
          return reply.code(400).type("text/plain; charset=utf-8").send("Invalid appId");
        }
        let origins: string[];
        if (appId) {
          const found = await ctx.apps.byId(appId);
          if (!found) return reply.code(404).type("text/plain; charset=utf-8").send("Unknown app");
          origins = found.allowedOrigins;
        } else {
          origins = [...(await ctx.apps.allOrigins())];
        }
        origins = origins.filter((o) => ORIGIN.test(o));
        const { js, hash } = await getAuthScript();
        const csp = [
          "default-src 'none'",
          `script-src 'sha256-${hash}'`,
          "connect-src 'none'",
          "base-uri 'none'",
          "form-action 'none'",
          `frame-ancestors ${origins.length ? origins.join(" ") : "'none'"}`,
        ].join("; ");
        const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="${ALLOWED_ORIGINS_META}" content="${escapeAttr(JSON.stringify(origins))}"><title>Latchkey</title></head><body><script>${js}</script></body></html>`;
        return reply
          .header("content-security-policy", csp)
          .header("cache-control", "no-store")
          .header("x-content-type-options", "nosniff")
          .header("referrer-policy", "no-referrer")
          .type("text/html; charset=utf-8")
          .send(html);
      },
    );
  },
});
