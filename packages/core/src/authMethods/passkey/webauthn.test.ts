import { CHALLENGE_BYTES, PASSKEY_TIMEOUT_MS, WEBAUTHN_STAMP_HEADER_NAME } from "@latchkey/protocol";
import { describe, expect, it } from "vitest";
import * as webauthn from "./webauthn";

describe("passkey helpers", () => {
  it("use the protocol's constants", () => {
    expect([
      webauthn.PASSKEY_TIMEOUT_MS,
      webauthn.CHALLENGE_BYTES,
      webauthn.WEBAUTHN_STAMP_HEADER_NAME,
    ]).toEqual([PASSKEY_TIMEOUT_MS, CHALLENGE_BYTES, WEBAUTHN_STAMP_HEADER_NAME]);
  });

  it("base64url round-trips any bytes, without padding", () => {
    for (let n = 0; n < 70; n++) {
      const bytes = webauthn.randomBytes(n);
      const text = webauthn.toBase64Url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64url"));
      expect(webauthn.fromBase64Url(text)).toEqual(bytes);
      // Padded standard base64 (as CDP spells credential ids) reads the same.
      expect(webauthn.fromBase64Url(Buffer.from(bytes).toString("base64"))).toEqual(bytes);
    }
  });

  it("the stamp challenge is the UTF-8 of hex(sha256(body))", async () => {
    const challenge = await webauthn.stampChallenge('{"a":1}');
    expect(new TextDecoder().decode(challenge)).toBe(
      "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",
    );
  });

  it("maps browser errors: dismissed or aborted prompts are cancels", () => {
    const cancel = webauthn.toPasskeyError(new DOMException("x", "NotAllowedError"));
    expect(cancel).toMatchObject({ name: "PasskeyCancelledError", code: "PASSKEY_CANCELLED" });
    expect(webauthn.toPasskeyError(new DOMException("x", "AbortError"))).toMatchObject({
      code: "PASSKEY_CANCELLED",
    });
    expect(webauthn.toPasskeyError(new DOMException("x", "InvalidStateError"))).toMatchObject({
      name: "PasskeyError",
      code: "PASSKEY_ALREADY_REGISTERED",
    });
    expect(webauthn.toPasskeyError(new DOMException("bad rp", "SecurityError"))).toMatchObject({
      code: "PASSKEY_FAILED",
      message: "The passkey request failed: bad rp",
    });
  });
});
