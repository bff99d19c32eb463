/**
 * An app's backend may authenticate with a JWT instead of the API key (spec §3 "api key or jwt"): signed
 * by a key of the app's JWKS, from its issuer, for its audience, unexpired. Anything else is refused with
 * INVALID_API_KEY and says why. The key set is served by a real HTTP server here.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, post, SCENARIO_DATABASES, signUpByEmail, startHarness, TEST_APP } from "./helpers";

const ISSUER = "https://backend.shop.test";

describe.each(SCENARIO_DATABASES)("app JWTs (%s)", (kind) => {
  let h: Harness;
  let jwks: Server;
  let sign: (
    claims?: Record<string, unknown>,
    opts?: { exp?: string; key?: "good" | "stranger" },
  ) => Promise<string>;
  let fetches = 0;

  beforeAll(async () => {
    const good = await generateKeyPair("ES256");
    const stranger = await generateKeyPair("ES256");
    const publicJwk: JWK = { ...(await exportJWK(good.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwks = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    h = await startHarness(kind, {
      apps: [
        TEST_APP,
        {
          id: "jwt-app",
          name: "JWT App",
          allowedOrigins: ["https://shop.test"],
          jwt: { issuer: ISSUER, jwksUrl },
        },
      ],
    });
    sign = (claims = {}, opts = {}) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience("jwt-app")
        .setIssuedAt()
        .setExpirationTime(opts.exp ?? "5m")
        .sign((opts.key === "stranger" ? stranger : good).privateKey);
  });
  afterAll(async () => {
    await h?.close();
    jwks?.close();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("accepts the app's JWT for the signer API, and a whole email sign-up with it", async () => {
    const token = await sign();
    const config = await post(h.url, "/signer/v1/signer-config", {}, bearer(token));
    expect(config.status).toBe(200);
    const user = await signUpByEmail(h, `jwt-${kind}@example.com`, bearer(token));
    expect(user.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The key set is fetched once and reused.
    expect(fetches).toBeLessThanOrEqual(2);
  });

  it("refuses an expired token, another key, another issuer or audience, and an app that takes no JWTs", async () => {
    const cases: [string, Promise<string>, RegExp][] = [
      ["expired", sign({}, { exp: "-1m" }), /expired/],
      ["stranger key", sign({}, { key: "stranger" }), /not signed by the app's keys/],
      [
        "issuer",
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setIssuer("https://evil.test")
          .setAudience("jwt-app")
          .setExpirationTime("5m")
          .sign(new Uint8Array(32)),
        /App JWT refused/,
      ],
      [
        "no such app",
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setAudience("nope")
          .setExpirationTime("5m")
          .sign(new Uint8Array(32)),
        /audience names no app/,
      ],
      [
        "app without JWTs",
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setAudience(TEST_APP.id)
          .setExpirationTime("5m")
          .sign(new Uint8Array(32)),
        /does not accept JWTs/,
      ],
    ];
    for (const [name, token, message] of cases) {
      const r = await post(h.url, "/signer/v1/signer-config", {}, bearer(await token));
      expect({ name, status: r.status, code: r.json.code }).toEqual({
        name,
        status: 401,
        code: "INVALID_API_KEY",
      });
      expect(r.json.error).toMatch(message);
    }
  });

  it("still checks the browser's origin against the app's", async () => {
    const token = await sign();
    const ok = await post(
      h.url,
      "/signer/v1/signer-config",
      {},
      { ...bearer(token), origin: "https://shop.test" },
    );
    expect(ok.status).toBe(200);
    const refused = await post(
      h.url,
      "/signer/v1/signer-config",
      {},
      { ...bearer(token), origin: "https://evil.test" },
    );
    expect(refused.json.code).toBe("ORIGIN_NOT_ALLOWED");
  });
});
