/**
 * A signer created with `jwt` instead of `apiKey` (spec §3 "Session settings", §7 "Authorization: Bearer
 * <api key or jwt>"): every request carries the app's JWT as its bearer token, and the service takes it
 * for the app. The app's backend is played by an ES256 key whose public half a real HTTP server serves.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryKeyHolder, createMemoryStorage, createSigner, SignerApiError } from "@latchkey/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailCount, startService, type TestService } from "./helpers/service";

const ISSUER = "https://backend.jwt-shop.test";
const APP_ID = "jwt-shop";
const appKey = generateKeyPairSync("ec", { namedCurve: "P-256" });
const strangerKey = generateKeyPairSync("ec", { namedCurve: "P-256" });

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An ES256 JWT for the app, as its backend would mint it. */
function appJwt(privateKey: KeyObject = appKey.privateKey): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64url({ alg: "ES256", kid: "k1", typ: "JWT" })}.${b64url({ iss: ISSUER, aud: APP_ID, iat: now, exp: now + 300 })}`;
  const signature = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}

let svc: TestService;
let jwks: Server;

beforeAll(async () => {
  const publicJwk = { ...appKey.publicKey.export({ format: "jwk" }), kid: "k1", alg: "ES256", use: "sig" };
  jwks = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  svc = await startService({
    apps: [
      {
        id: APP_ID,
        name: "JWT Shop",
        allowedOrigins: ["http://127.0.0.1:1"],
        jwt: { issuer: ISSUER, jwksUrl },
      },
    ],
  });
});
afterAll(async () => {
  await svc?.close();
  await new Promise((resolve) => (jwks ? jwks.close(resolve) : resolve(undefined)));
});

function signerWithJwt(jwt: string, authorizations: (string | null)[]) {
  const recordingFetch: typeof fetch = (input, init) => {
    authorizations.push(new Headers(init?.headers).get("authorization"));
    return fetch(input, init);
  };
  return createSigner({
    baseUrl: svc.baseUrl,
    jwt,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    fetch: recordingFetch,
  });
}

describe("a signer created with the app's JWT", () => {
  it("sends Authorization: Bearer <jwt> on every request, and the service signs the user in for the app", async () => {
    const jwt = appJwt();
    const authorizations: (string | null)[] = [];
    const signer = signerWithJwt(jwt, authorizations);
    const email = "jwt-user@example.com";
    const sent = mailCount(svc, email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    const done = await signer.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
    expect(done).toMatchObject({ status: "CONNECTED", user: { email } });
    expect((await signer.listAuthMethods()).email).toBe(email);
    expect(authorizations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(authorizations)).toEqual(new Set([`Bearer ${jwt}`]));
  });

  it("a JWT the app's keys did not sign is refused: the header is what the service judges", async () => {
    const authorizations: (string | null)[] = [];
    const signer = signerWithJwt(appJwt(strangerKey.privateKey), authorizations);
    const error = await signer
      .authenticate({ type: "email", email: "stranger@example.com", emailMode: "otp" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignerApiError);
    expect(error).toMatchObject({ code: "INVALID_API_KEY" });
    expect((error as Error).message).toContain("not signed by the app's keys");
  });
});
