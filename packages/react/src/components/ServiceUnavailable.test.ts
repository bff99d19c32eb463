import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import { LatchkeyProvider } from "../context";
import { DEVELOPER_LABEL, developerNote, ServiceUnavailable } from "./ServiceUnavailable";

const USER_TEXT = "We can't reach the sign-in service right now. Please try again later.";
const CAUSE =
  "The Latchkey app does not allow this page's origin (http://localhost:3000): add it to the app's allowed origins";

const nodeEnv = process.env.NODE_ENV;
afterEach(() => {
  process.env.NODE_ENV = nodeEnv;
});

const render = () =>
  renderToStaticMarkup(
    h(
      LatchkeyProvider,
      { config: { serviceUrl: "http://127.0.0.1:9", apiKey: "lk_x" } },
      h(ServiceUnavailable, { code: "ORIGIN_NOT_ALLOWED", message: CAUSE }),
    ),
  );

describe("the service problem's developer line", () => {
  it("is the check's cause in development, nothing in production", () => {
    expect(developerNote(CAUSE, true)).toBe(CAUSE);
    expect(developerNote(CAUSE, false)).toBeUndefined();
    expect(developerNote(undefined, true)).toBeUndefined();
  });

  it("a development build shows the user's text and, beside it, the cause for the developer", () => {
    process.env.NODE_ENV = "development";
    const html = render();
    expect(html).toContain(USER_TEXT.replace("'", "&#x27;"));
    expect(html).toContain("Sign-in is unavailable");
    expect(html).toContain(`${DEVELOPER_LABEL} The Latchkey app does not allow this page&#x27;s origin`);
    expect(html).toContain("http://localhost:3000");
    expect(html).toContain('data-testid="lk-developer-note"');
  });

  it("a production build shows the user's text only", () => {
    process.env.NODE_ENV = "production";
    const html = render();
    expect(html).toContain(USER_TEXT.replace("'", "&#x27;"));
    expect(html).not.toContain(DEVELOPER_LABEL);
    expect(html).not.toContain("allowed origins");
  });

  it("a production bundle of the package holds neither the developer line nor the missing-modal warning", async () => {
    const bundle = (NODE_ENV: string) =>
      build({
        entryPoints: [fileURLToPath(new URL("../index.ts", import.meta.url))],
        bundle: true,
        splitting: true,
        outdir: "/tmp/lk-unused",
        write: false,
        minify: true,
        format: "esm",
        platform: "browser",
        conditions: ["source"],
        define: { "process.env.NODE_ENV": JSON.stringify(NODE_ENV) },
        external: ["react", "react-dom", "react/jsx-runtime"],
        logLevel: "silent",
      }).then((r) => r.outputFiles.map((f) => f.text).join("\n"));
    const dev = await bundle("development");
    // Booleans: a failure would otherwise print megabytes of bundle.
    expect(dev.includes(DEVELOPER_LABEL)).toBe(true);
    expect(dev.includes("no <AuthModal /> is rendered")).toBe(true);
    const production = await bundle("production");
    expect(production.includes(DEVELOPER_LABEL)).toBe(false);
    expect(production.includes("lk-developer-note")).toBe(false);
    expect(production.includes("no <AuthModal /> is rendered")).toBe(false);
  });
});
