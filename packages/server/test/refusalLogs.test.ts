/**
 * The requests the service refuses before any route runs — an unknown API key, an origin the app does not
 * allow — are logged (warn), each key prefix or origin once a minute, the key by its prefix only.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createService, type Service } from "../src/createService";
import { post, TEST_APP } from "./helpers";

let logs = "";
let clock = 1_700_000_000_000;
let service: Service;
let url: string;
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs += chunk.toString();
      cb();
    },
  });
  service = await createService({
    db: join(mkdtempSync(join(tmpdir(), "latchkey-refusals-")), "refusals.db"),
    masterKey: randomBytes(32),
    smtpUrl: "smtp://127.0.0.1:1", // nothing is mailed here
    apps: [TEST_APP],
    logStream: sink,
    now: () => clock,
  });
  url = await service.listen({ port: 0 });
});
afterAll(async () => {
  await service?.close();
});

const lines = (needle: string) =>
  logs
    .split("\n")
    .filter((l) => l.includes(needle))
    .map((l) => JSON.parse(l) as { level: number; msg: string; refused?: Record<string, string> });

describe("refused requests in the service's log", () => {
  it("an unknown API key: its prefix once a window, never the whole key", async () => {
    const key = "lk_wrongkey_0123456789abcdefXYZ";
    for (let i = 0; i < 3; i++) {
      const r = await post(url, "/signer/v1/signer-config", {}, { authorization: `Bearer ${key}` });
      expect(r.json.code).toBe("INVALID_API_KEY");
    }
    let found = lines("unknown or revoked API key");
    expect(found).toHaveLength(1);
    expect(found[0]?.level).toBe(40);
    expect(found[0]?.refused?.keyPrefix).toBe("lk_wrong…");
    expect(found[0]?.msg).toContain("lk_wrong…");
    expect(logs).not.toContain(key);
    expect(logs).not.toContain("0123456789abcdefXYZ");

    clock += 61_000;
    await post(url, "/signer/v1/signer-config", {}, { authorization: `Bearer ${key}` });
    found = lines("unknown or revoked API key");
    expect(found).toHaveLength(2);
    expect(logs).not.toContain(key);
  });

  it("an origin the app does not allow: the origin and the app, once a window", async () => {
    const headers = { authorization: `Bearer ${TEST_APP.apiKeys[0]}`, origin: "http://not-allowed.test" };
    for (let i = 0; i < 3; i++) {
      const r = await post(url, "/signer/v1/signer-config", {}, headers);
      expect(r.json.code).toBe("ORIGIN_NOT_ALLOWED");
    }
    const found = lines("Refused origin http://not-allowed.test: app test-app");
    expect(found).toHaveLength(1);
    expect(found[0]?.refused).toEqual({ origin: "http://not-allowed.test", appId: "test-app" });
    expect(found[0]?.msg).toContain("add it to the app's allowed origins");
    expect(logs).not.toContain(TEST_APP.apiKeys[0]);
  });

  it("a browser's preflight from an origin no app allows: the origin, once a window", async () => {
    const preflight = () =>
      fetch(`${url}/signer/v1/signer-config`, {
        method: "OPTIONS",
        headers: { origin: "http://stranger.test", "access-control-request-method": "POST" },
      });
    for (let i = 0; i < 3; i++) expect((await preflight()).status).toBe(403);
    expect(lines("Refused origin http://stranger.test: no app allows it")).toHaveLength(1);
    clock += 61_000;
    await preflight();
    expect(lines("Refused origin http://stranger.test: no app allows it")).toHaveLength(2);
  });

  it("an allowed origin with a known key logs no refusal", async () => {
    const before = lines("Refused").length;
    const r = await post(
      url,
      "/signer/v1/signer-config",
      {},
      { authorization: `Bearer ${TEST_APP.apiKeys[0]}`, origin: "http://app.test" },
    );
    expect(r.status).toBe(200);
    expect(lines("Refused").length).toBe(before);
  });
});
