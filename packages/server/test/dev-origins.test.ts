/**
 * `latchkey serve --dev` works beside an app on any local port: the dev app allows `http://localhost:*`
 * and `http://127.0.0.1:*` (and nothing else), for the API, CORS, the auth frame, magic links and passkeys.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import { post, targetKey } from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

describe("the dev app's origins", () => {
  let svc: TestService;
  let key: { authorization: string };
  beforeAll(async () => {
    svc = await startTestService({ dev: true });
    key = { authorization: `Bearer ${svc.devApiKey}` };
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("answers the API and CORS for any local port, and refuses every other origin", async () => {
    for (const origin of ["http://localhost:3000", "http://localhost:5173", "http://127.0.0.1:8080"]) {
      const ok = await post(svc.url, "/signer/v1/signer-config", {}, { ...key, origin });
      expect({ origin, status: ok.status }).toEqual({ origin, status: 200 });
      const preflight = await fetch(`${svc.url}/signer/v1/signer-config`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    }
    for (const origin of [
      "https://localhost:3000",
      "http://localhost.evil.example:3000",
      "http://evil.example",
      "http://192.168.1.2:3000",
    ]) {
      const refused = await post(svc.url, "/signer/v1/signer-config", {}, { ...key, origin });
      expect({ origin, status: refused.status, code: refused.json.code }).toEqual({
        origin,
        status: 403,
        code: "ORIGIN_NOT_ALLOWED",
      });
    }
  });

  it("lets the auth frame be framed by any local port (CSP frame-ancestors)", async () => {
    const res = await fetch(`${svc.url}/frames/auth?appId=dev`);
    expect(res.headers.get("content-security-policy")).toContain(
      "frame-ancestors http://localhost:* http://127.0.0.1:*",
    );
    const html = await res.text();
    expect(html).toContain("[&quot;http://localhost:*&quot;,&quot;http://127.0.0.1:*&quot;]");
  });

  it("mails a magic link back to the local page that asked, and to no other", async () => {
    const email = "links@example.com";
    const signup = await post(
      svc.url,
      "/signer/v1/signup",
      {
        email,
        emailMode: "magicLink",
        redirectUrl: "http://localhost:3000/",
        targetPublicKey: targetKey().publicKey,
      },
      { ...key, origin: "http://localhost:3000" },
    );
    expect(signup.json.code ?? "").toBe("");
    expect(signup.status).toBe(200);
    const mail = await devMailbox(svc.service).mail(email);
    expect(mail.text).toContain("http://localhost:3000/?");
    const refused = await post(
      svc.url,
      "/signer/v1/auth",
      {
        email,
        emailMode: "magicLink",
        redirectUrl: "http://evil.example/",
        targetPublicKey: targetKey().publicKey,
      },
      { ...key, origin: "http://localhost:3000" },
    );
    expect(refused.json.code).toBe("INVALID_REDIRECT_URL");
  });

  it("verifies a passkey made on any local port (relying party localhost)", async () => {
    const auth = new SoftAuthenticator("localhost", "http://localhost:3000");
    const challenge = randomBytes(32).toString("base64url");
    const signup = await post(
      svc.url,
      "/signer/v1/signup",
      { passkey: { challenge, attestation: auth.attest(challenge) } },
      { ...key, origin: "http://localhost:3000" },
    );
    expect(signup.json.code ?? "").toBe("");
    expect(signup.status).toBe(200);
    const stranger = new SoftAuthenticator("localhost", "http://evil.example");
    const again = randomBytes(32).toString("base64url");
    const refused = await post(
      svc.url,
      "/signer/v1/signup",
      { passkey: { challenge: again, attestation: stranger.attest(again) } },
      key,
    );
    expect(refused.json.code).toBe("PASSKEY_VERIFICATION_FAILED");
  });
});
