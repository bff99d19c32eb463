import {
  decodeStamp,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  sealCredentialBundle,
  toHex,
  verifyApiKeyStamp,
} from "@latchkey/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createBrowserKeyStore } from "./index";

// Node has no IndexedDB: the store keeps its target key in memory, as a browser that refuses storage does.
async function injectAndStamp() {
  const keys = createBrowserKeyStore("keystore-test");
  const targetPublicKey = await keys.initTargetKey();
  const session = generateP256PrivateKey();
  const bundle = await sealCredentialBundle({ plaintext: session, targetPublicKey });
  const publicKeyHex = await keys.injectCredentialBundle(bundle);
  const body = JSON.stringify({ organizationId: "org", timestampMs: String(Date.now()) });
  const { stampHeaderValue } = await keys.stamp(body);
  return { session, publicKeyHex, body, stamp: decodeStamp(stampHeaderValue) };
}

describe("the session key's public half", () => {
  afterEach(() => vi.restoreAllMocks());

  it("comes from the platform's PKCS#8 import, and stamps verify against it", async () => {
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    const { session, publicKeyHex, body, stamp } = await injectAndStamp();
    expect(publicKeyHex).toBe(toHex(p256PublicKeyFromPrivate(session, true)));
    expect(importKey.mock.calls.map((c) => c[0])).toContain("pkcs8");
    expect(stamp.publicKey).toBe(publicKeyHex);
    expect(verifyApiKeyStamp(body, stamp)).toBe(true);
  });

  it("is computed in JavaScript where the platform refuses a PKCS#8 key without its public key", async () => {
    const original = crypto.subtle.importKey.bind(crypto.subtle);
    vi.spyOn(crypto.subtle, "importKey").mockImplementation(((...args: Parameters<typeof original>) =>
      args[0] === "pkcs8"
        ? Promise.reject(new DOMException("no public key", "DataError"))
        : original(...args)) as typeof original);
    const { session, publicKeyHex } = await injectAndStamp();
    expect(publicKeyHex).toBe(toHex(p256PublicKeyFromPrivate(session, true)));
  });
});
