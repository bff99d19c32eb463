/**
 * Stamps as other clients make them: Turnkey's own `@turnkey/api-key-stamper` in Node (node:crypto) and
 * WebCrypto in Chromium sign P-256 without normalising s, so about half their signatures have a high s.
 * Every one of their stamps is accepted; the test counts the high-s ones so that it
 * cannot pass without sending some.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeStamp, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { p256 } from "@noble/curves/nist";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import type { Browser } from "playwright-core";
import { hashMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test-support/chromium";
import type { AppConfig } from "../src/config";
import {
  type EmailUser,
  type Harness,
  post,
  SCENARIO_DATABASES,
  signUpByEmail,
  startHarness,
  TEST_APP,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const CALLS = 220;

const highS = (derHex: string) => p256.Signature.fromBytes(Buffer.from(derHex, "hex"), "der").hasHighS();

/** How many of these stamps' signatures have a high s, and how many a low one. */
function countS(headers: string[]): { high: number; low: number } {
  const high = headers.filter((h) => highS(decodeStamp(h).signature)).length;
  return { high, low: headers.length - high };
}

// The page that stamps in Chromium: WebCrypto's ECDSA signature (r‖s, s as it comes) in minimal DER, the
// stamp as Turnkey's browser stamper writes it. A plain script, so nothing of the test's build reaches it.
const PAGE_SCRIPT = `
window.stampMany = async ({ serviceUrl, jwk, publicKey, orgId, calls }) => {
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const int = (bytes) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const v = Array.from(bytes.subarray(i));
    return v[0] & 0x80 ? [0, ...v] : v;
  };
  const der = (raw) => {
    const r = int(raw.subarray(0, 32));
    const s = int(raw.subarray(32));
    const seq = [2, r.length, ...r, 2, s.length, ...s];
    return new Uint8Array([0x30, seq.length, ...seq]);
  };
  const b64url = (text) => btoa(text).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const results = [];
  for (let i = 0; i < calls; i++) {
    const body = JSON.stringify({ type: "QUERY_TYPE_WHOAMI", organizationId: orgId });
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(body)),
    );
    const stamp = b64url(
      JSON.stringify({ publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: hex(der(raw)) }),
    );
    const res = await fetch(serviceUrl + "/public/v1/query/whoami", {
      method: "POST",
      headers: { "content-type": "application/json", "X-Stamp": stamp },
      body,
    });
    const json = await res.json();
    results.push({ status: res.status, code: json.code, userId: json.userId, stamp });
  }
  return results;
};
`;

let browser: Browser;
let pageServer: Server;
let pageOrigin: string;
beforeAll(async () => {
  pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><script>${PAGE_SCRIPT}</script></head></html>`);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

describe.each(SCENARIO_DATABASES)("high-s stamps are accepted (%s)", (kind) => {
  let h: Harness;
  let user: EmailUser;
  let apiPublicKey: string;
  let apiPrivateKey: string;

  beforeAll(async () => {
    // The page's origin (a loopback port) is one the test app allows, as a browser app's would be.
    const app: AppConfig = { ...TEST_APP, allowedOrigins: [...TEST_APP.allowedOrigins, pageOrigin] };
    h = await startHarness(kind, { apps: [app] });
    user = await signUpByEmail(h, `high-s-${kind}@example.com`, KEY);
    apiPublicKey = toHex(p256PublicKeyFromPrivate(user.sessionKey, true));
    apiPrivateKey = toHex(user.sessionKey);
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`@turnkey/api-key-stamper in Node: ${CALLS} queries and 20 signatures, none refused`, async () => {
    // Exactly as Turnkey documents it, with the user's session key.
    const stamper = new ApiKeyStamper({ apiPublicKey, apiPrivateKey });
    const sent: string[] = [];
    const refused: unknown[] = [];
    for (let i = 0; i < CALLS; i++) {
      const body = JSON.stringify({ organizationId: user.orgId });
      const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body);
      sent.push(stampHeaderValue);
      const r = await post(h.url, "/public/v1/query/whoami", body, { [stampHeaderName]: stampHeaderValue });
      if (r.status !== 200 || r.json.userId !== user.userId) refused.push({ i, status: r.status, ...r.json });
    }
    // Changes too: signatures on the key-management API, and through the signer API's stamped request
    // (as the Account Kit signer client sends them).
    for (let i = 0; i < 20; i++) {
      const body = JSON.stringify({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        parameters: {
          signWith: user.address,
          payload: hashMessage(`high-s ${kind} ${i}`),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      });
      const stamp = await stamper.stamp(body);
      sent.push(stamp.stampHeaderValue);
      const r =
        i % 2 === 0
          ? await post(h.url, "/public/v1/submit/sign_raw_payload", body, {
              [stamp.stampHeaderName]: stamp.stampHeaderValue,
            })
          : await post(
              h.url,
              "/signer/v1/sign-payload",
              { stampedRequest: { body, url: "https://x/public/v1/submit/sign_raw_payload", stamp } },
              KEY,
            );
      if (r.status !== 200) refused.push({ i, status: r.status, ...r.json });
    }
    expect(refused).toEqual([]);
    const { high, low } = countS(sent);
    expect(high + low).toBe(CALLS + 20);
    // Binomial(240, 1/2): fewer than 60 of either is below one chance in 10^14.
    expect(high).toBeGreaterThanOrEqual(60);
    expect(low).toBeGreaterThanOrEqual(60);
  });

  it(`un-normalised WebCrypto in Chromium: ${CALLS} cross-origin queries, none refused`, async () => {
    const uncompressed = p256PublicKeyFromPrivate(user.sessionKey, false);
    const jwk = {
      kty: "EC",
      crv: "P-256",
      d: Buffer.from(user.sessionKey).toString("base64url"),
      x: Buffer.from(uncompressed.subarray(1, 33)).toString("base64url"),
      y: Buffer.from(uncompressed.subarray(33)).toString("base64url"),
    };
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${pageOrigin}/`);
      const args = { serviceUrl: h.url, jwk, publicKey: apiPublicKey, orgId: user.orgId, calls: CALLS };
      const results = (await page.evaluate(`window.stampMany(${JSON.stringify(args)})`)) as {
        status: number;
        code?: string;
        userId?: string;
        stamp: string;
      }[];
      expect(results).toHaveLength(CALLS);
      expect(results.filter((r) => r.status !== 200 || r.userId !== user.userId)).toEqual([]);
      const { high, low } = countS(results.map((r) => r.stamp));
      // Binomial(220, 1/2): fewer than 50 of either is below one chance in 10^15.
      expect(high).toBeGreaterThanOrEqual(50);
      expect(low).toBeGreaterThanOrEqual(50);
    } finally {
      await context.close();
    }
  });
});
