import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createService } from "../src/createService";
import { codeFrom, post, signBody, stamped, startSmtp, TEST_APP, targetKey } from "./helpers";

describe("logs", () => {
  it("never contain a code, a key, a bundle, a stamp or a token, even at debug level; /metrics counts", async () => {
    let logs = "";
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs += chunk.toString();
        cb();
      },
    });
    const smtp = await startSmtp();
    const service = await createService({
      db: join(mkdtempSync(join(tmpdir(), "latchkey-logs-")), "logs.db"),
      masterKey: randomBytes(32),
      smtpUrl: smtp.url,
      apps: [TEST_APP],
      logLevel: "debug",
      logStream: sink,
    });
    const url = await service.listen({ port: 0 });
    try {
      const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
      const email = "secretive@example.com";
      const t = targetKey();
      const s = await post(url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, KEY);
      const code = codeFrom((await smtp.waitFor(email)).raw);
      const wrong = code === "000000" ? "111111" : "000000";
      await post(
        url,
        "/signer/v1/otp",
        { orgId: s.json.orgId, otpId: s.json.otpId, otpCode: wrong, targetPublicKey: t.publicKey },
        KEY,
      );
      const o = await post(
        url,
        "/signer/v1/otp",
        { orgId: s.json.orgId, otpId: s.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
        KEY,
      );
      const bundle = o.json.credentialBundle as string;
      const key = await t.open(bundle);
      const signReq = stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(
          s.json.orgId as string,
          s.json.address as string,
          `0x${"11".repeat(32)}`,
          "HASH_FUNCTION_NO_OP",
        ),
        key,
      );
      const signed = await post(url, "/signer/v1/sign-payload", signReq, KEY);
      expect(signed.status).toBe(200);
      await post(
        url,
        "/signer/v1/whoami",
        { stampedRequest: { ...signReq.stampedRequest, url: "/nope" } },
        KEY,
      );

      expect(logs).toContain("request completed");

      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(
        /latchkey_http_requests_total\{method="POST",route="\/signer\/v1\/otp",status="400"\} 1/,
      );
      expect(metrics).toMatch(
        /latchkey_http_requests_total\{method="POST",route="\/signer\/v1\/otp",status="200"\} 1/,
      );
      expect(metrics).toContain("latchkey_signatures_total 1");
      expect(metrics).toContain("latchkey_otp_failures_total 1");
      expect(metrics).toMatch(
        /latchkey_http_request_duration_ms_count\{method="POST",route="\/signer\/v1\/sign-payload"\} 1/,
      );
      for (const secret of [code, bundle, email]) expect(metrics.includes(secret)).toBe(false);
      for (const secret of [
        code,
        bundle,
        TEST_APP.apiKeys[0] as string,
        signReq.stampedRequest.stamp.stampHeaderValue,
        Buffer.from(key).toString("hex"),
      ]) {
        expect(logs.includes(secret), `log contains ${secret.slice(0, 12)}…`).toBe(false);
      }
    } finally {
      await service.close();
      await smtp.close();
    }
  });
});
