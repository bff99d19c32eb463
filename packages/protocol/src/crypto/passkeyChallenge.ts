import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { encodeBase64url } from "./base64url";
import { toHex } from "./hex";

/**
 * The bytes a passkey stamp's WebAuthn assertion signs as its challenge (DESIGN §3.2): the UTF-8 of
 * hex(sha256(body)). The browser hands them to `navigator.credentials.get`; the service compares their
 * base64url ({@link passkeyStampChallenge}) with the assertion's client data.
 */
export function passkeyStampChallengeBytes(body: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(toHex(sha256(utf8ToBytes(body))));
}

/**
 * The WebAuthn challenge a passkey stamp signs (DESIGN §3.2): the UTF-8 bytes of hex(sha256(body)),
 * as base64url without padding. Client and server compute it with this one function.
 */
export function passkeyStampChallenge(body: string): string {
  return encodeBase64url(passkeyStampChallengeBytes(body));
}
