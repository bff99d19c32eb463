// Plain WebAuthn for passkey sign-up, login stamps and adding passkeys. The signer loads this module on
// first use (dynamic import), so apps that never touch passkeys do not ship it in their first bundle.
// Its protocol values come from `@latchkey/protocol/codecs` and `/crypto`, whose exports are named one
// by one: without code splitting (esbuild iife), esbuild wraps a lazily imported module's dependencies in
// lazy initialisers, and static imports that resolve through protocol's `export *` (its root) then skip
// the init (the first request went out with an `undefined` header). The constants are the spec's (§9)
// and DESIGN §3.2's; webauthn.test.ts checks them against protocol.
import { decodeBase64urlLenient, encodeBase64url } from "@latchkey/protocol/codecs";
import { passkeyStampChallengeBytes } from "@latchkey/protocol/crypto";
import type { PasskeyAttestation, PasskeyCredentials } from "../../client/types";
import { PasskeyCancelledError, PasskeyError } from "../../errors";

/** Passkey prompt timeout (spec §9). */
export const PASSKEY_TIMEOUT_MS = 300_000;
/** Bytes of the challenge and of the user id (spec §9). */
export const CHALLENGE_BYTES = 32;
export const WEBAUTHN_STAMP_HEADER_NAME = "X-Stamp-WebAuthn";

/** COSE ids of the algorithms the service verifies: ES256 and RS256 (spec §5). */
const PUB_KEY_CRED_PARAMS: PublicKeyCredentialParameters[] = [
  { type: "public-key", alg: -7 },
  { type: "public-key", alg: -257 },
];

/** base64url without padding of what the authenticator answered (an ArrayBuffer) or of bytes. */
export function toBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  return encodeBase64url(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
}

export function randomBytes(n = CHALLENGE_BYTES): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** Maps what `navigator.credentials` throws to our errors; a dismissed or aborted prompt is a cancel. */
export function toPasskeyError(error: unknown): Error {
  if (error instanceof PasskeyError) return error;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "NotAllowedError" || name === "AbortError") return new PasskeyCancelledError({ cause: error });
  if (name === "InvalidStateError") return new PasskeyError("PASSKEY_ALREADY_REGISTERED", { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new PasskeyError("PASSKEY_FAILED", {
    cause: error,
    message: detail ? `The passkey request failed: ${detail}` : undefined,
  });
}

export interface CreatePasskeyParams {
  credentials: PasskeyCredentials;
  rpId: string;
  rpName: string;
  /** Shown by the authenticator: the email, or "Passkey <date>". */
  userName: string;
  /** Credentials the authenticator must not hold already (adding a passkey to an account). */
  excludeCredentials?: { credentialId: string; transports?: string[] }[];
  signal?: AbortSignal;
}

/**
 * `navigator.credentials.create()` with a fresh 32-byte challenge and user id (spec §9), ES256/RS256,
 * resident key and user verification preferred, 5-minute timeout. Answers what the service verifies.
 */
export async function createPasskey(
  params: CreatePasskeyParams,
): Promise<{ challenge: string; attestation: PasskeyAttestation }> {
  const challenge = randomBytes();
  let credential: Credential | null;
  try {
    credential = await params.credentials.create({
      publicKey: {
        challenge,
        rp: { id: params.rpId, name: params.rpName },
        user: { id: randomBytes(), name: params.userName, displayName: params.userName },
        pubKeyCredParams: PUB_KEY_CRED_PARAMS,
        authenticatorSelection: {
          residentKey: "preferred",
          requireResidentKey: false,
          userVerification: "preferred",
        },
        excludeCredentials: (params.excludeCredentials ?? []).map((c) => ({
          type: "public-key",
          id: decodeBase64urlLenient(c.credentialId),
          ...(c.transports?.length ? { transports: c.transports as AuthenticatorTransport[] } : {}),
        })),
        timeout: PASSKEY_TIMEOUT_MS,
      },
      ...(params.signal ? { signal: params.signal } : {}),
    });
  } catch (error) {
    // An aborted signal rejects with its reason, whatever that is: still a cancel.
    throw params.signal?.aborted ? new PasskeyCancelledError({ cause: error }) : toPasskeyError(error);
  }
  if (!credential) throw new PasskeyError("PASSKEY_FAILED");
  const { rawId, response } = credential as PublicKeyCredential;
  const attestation = response as AuthenticatorAttestationResponse;
  const transports = typeof attestation.getTransports === "function" ? attestation.getTransports() : [];
  return {
    challenge: toBase64Url(challenge),
    attestation: {
      credentialId: toBase64Url(rawId),
      clientDataJson: toBase64Url(attestation.clientDataJSON),
      attestationObject: toBase64Url(attestation.attestationObject),
      transports,
    },
  };
}

export interface PasskeyStampParams {
  credentials: PasskeyCredentials;
  rpId: string;
  /** Empty (the default) asks for any discoverable credential of this relying party. */
  allowCredentials?: { credentialId: string; transports?: string[] }[];
  signal?: AbortSignal;
}

/**
 * Stamps `body` with a passkey (`X-Stamp-WebAuthn`): an assertion whose challenge is the body's hash.
 * One call is one prompt. Answers the stamp header and the credential that signed.
 */
export async function stampWithPasskey(
  body: string,
  params: PasskeyStampParams,
): Promise<{ stampHeaderName: string; stampHeaderValue: string; credentialId: string }> {
  const challenge = passkeyStampChallengeBytes(body);
  let credential: Credential | null;
  try {
    credential = await params.credentials.get({
      publicKey: {
        challenge,
        rpId: params.rpId,
        allowCredentials: (params.allowCredentials ?? []).map((c) => ({
          type: "public-key",
          id: decodeBase64urlLenient(c.credentialId),
          ...(c.transports?.length ? { transports: c.transports as AuthenticatorTransport[] } : {}),
        })),
        userVerification: "preferred",
        timeout: PASSKEY_TIMEOUT_MS,
      },
      ...(params.signal ? { signal: params.signal } : {}),
    });
  } catch (error) {
    // An aborted signal rejects with its reason, whatever that is: still a cancel.
    throw params.signal?.aborted ? new PasskeyCancelledError({ cause: error }) : toPasskeyError(error);
  }
  if (!credential) throw new PasskeyError("PASSKEY_FAILED");
  const { rawId, response } = credential as PublicKeyCredential;
  const assertion = response as AuthenticatorAssertionResponse;
  const credentialId = toBase64Url(rawId);
  const stamp = {
    credentialId,
    authenticatorData: toBase64Url(assertion.authenticatorData),
    clientDataJson: toBase64Url(assertion.clientDataJSON),
    signature: toBase64Url(assertion.signature),
    ...(assertion.userHandle?.byteLength ? { userHandle: toBase64Url(assertion.userHandle) } : {}),
  };
  return {
    stampHeaderName: WEBAUTHN_STAMP_HEADER_NAME,
    stampHeaderValue: JSON.stringify(stamp),
    credentialId,
  };
}
