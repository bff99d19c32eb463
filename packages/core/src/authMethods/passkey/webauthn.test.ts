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

  it("spells what the authenticator answers as base64url without padding", () => {
    for (let n = 0; n < 70; n++) {
      const bytes = webauthn.randomBytes(n);
      expect(webauthn.toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
      expect(webauthn.toBase64Url(bytes.buffer)).toBe(Buffer.from(bytes).toString("base64url"));
    }
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
