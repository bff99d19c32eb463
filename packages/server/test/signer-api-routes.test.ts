import { readdirSync, readFileSync } from "node:fs";
import { signerApi } from "@latchkey/protocol/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, post, startHarness, TEST_APP } from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

/**
 * The protocol's signer-API table is the contract: every entry is served, the client calls nothing else, and
 * it calls every entry but those the app's backend calls (`backendOnly`).
 */
describe("the signer-API endpoint table", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => {
    await h?.close();
  });

  it("has a route for every entry, answering bad input with 4xx, never 404 or 500", async () => {
    for (const [name, endpoint] of Object.entries(signerApi)) {
      const url = `/signer${endpoint.path}`;
      expect(h.service.http.hasRoute({ method: "POST", url }), `${name}: ${url}`).toBe(true);
      const r = await post(h.url, url, { unexpected: "\u0001" }, KEY);
      expect({ name, notFound: r.status === 404, serverError: r.status >= 500 }).toEqual({
        name,
        notFound: false,
        serverError: false,
      });
    }
  });

  it("is what the client calls: every call goes through an entry of the table", () => {
    // The client's calls live with the actions that make them: every source file of the core package.
    const src = new URL("../../core/src/", import.meta.url);
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
    );
    expect(files).toContain("client/signerClient.ts");
    const source = files.map((f) => readFileSync(new URL(f, src), "utf8")).join("\n");
    expect(source.match(/"\/v1\/[a-z-]+"/g) ?? []).toEqual([]);
    const used = new Set([...source.matchAll(/signerRoutes\.([A-Za-z]+)/g)].map((m) => m[1]));
    expect([...used].filter((name) => !((name as string) in signerApi))).toEqual([]);
    // The app's backend calls the backendOnly entries (server to server), never the browser client.
    const browser = Object.entries(signerApi).filter(([, e]) => !("backendOnly" in e && e.backendOnly));
    expect([...used].sort()).toEqual(browser.map(([name]) => name).sort());
  });

  it("serves no signer path that is not in the table", () => {
    // printRoutes draws a tree whose children continue their parent's path: rebuild the full paths.
    const stack: string[] = [];
    const all: string[] = [];
    for (const line of h.service.http.printRoutes({ commonPrefix: false }).split("\n")) {
      const at = line.indexOf("── ");
      if (at < 0) continue;
      const depth = Math.floor(at / 4);
      const [segment = "", methods = ""] = line.slice(at + 3).split(" (");
      stack[depth] = (depth > 0 ? (stack[depth - 1] ?? "") : "") + segment;
      if (methods.includes("POST")) all.push(stack[depth] as string);
    }
    const signerPaths = all.filter((p) => p.startsWith("/signer/"));
    const table = new Set(Object.values(signerApi).map((e) => `/signer${e.path}`));
    expect(signerPaths.length).toBe(table.size);
    expect(signerPaths.filter((p) => !table.has(p as string))).toEqual([]);
  });
});
