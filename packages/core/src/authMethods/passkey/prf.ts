// WebAuthn's `prf` extension for split custody's recovery (docs/split-custody.md §4): a passkey gives
// the same 32 bytes for the same input on every device it syncs to, and they encrypt the user's part of
// the wallet. Loaded on first use, with the protect and restore steps.
import { decodeBase64urlLenient, encodeBase64url } from "@latchkey/protocol/codecs";
import type { PasskeyAttestation, PasskeyCredentials } from "../../client/types";
import { PasskeyCancelledError, PasskeyError, SignerError } from "../../errors";
import { PASSKEY_TIMEOUT_MS, randomBytes, toBase64Url, toPasskeyError } from "./webauthn";

interface PrfExtensionResults {
  prf?: { enabled?: boolean; results?: { first?: ArrayBuffer | Uint8Array } };
}

function prfOutputOf(credential: Credential | null): Uint8Array | undefined {
  const results = (credential as PublicKeyCredential | null)?.getClientExtensionResults?.() as
    | PrfExtensionResults
    | undefined;
  const first = results?.prf?.results?.first;
  if (!first) return undefined;
  return first instanceof Uint8Array ? first.slice() : new Uint8Array(first);
}

async function ceremony<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw signal?.aborted ? new PasskeyCancelledError({ cause: error }) : toPasskeyError(error);
  }
}

/** One assertion with the PRF evaluated at `salt`, from one of `credentialIds` (any passkey when empty). */
export async function assertWithPrf(params: {
  credentials: PasskeyCredentials;
  rpId: string;
  salt: Uint8Array;
  credentialIds: string[];
  signal?: AbortSignal;
}): Promise<{ credentialId: string; prfOutput: Uint8Array }> {
  const credential = await ceremony(params.signal, () =>
    params.credentials.get({
      publicKey: {
        challenge: randomBytes(),
        rpId: params.rpId,
        allowCredentials: params.credentialIds.map((id) => ({
          type: "public-key",
          id: decodeBase64urlLenient(id),
        })),
        userVerification: "required",
        timeout: PASSKEY_TIMEOUT_MS,
        extensions: { prf: { eval: { first: params.salt } } } as AuthenticationExtensionsClientInputs,
      },
      ...(params.signal ? { signal: params.signal } : {}),
    }),
  );
  if (!credential) throw new PasskeyError("PASSKEY_FAILED");
  const prfOutput = prfOutputOf(credential);
  if (!prfOutput) throw new SignerError("PASSKEY_PRF_UNSUPPORTED");
  return {
    credentialId: encodeBase64url(new Uint8Array((credential as PublicKeyCredential).rawId)),
    prfOutput,
  };
}

/**
 * A new passkey for the wallet's recovery, with the PRF evaluated at `salt`: at creation when the
 * authenticator answers it then, else in one assertion right after.
 */
export async function createWithPrf(params: {
  credentials: PasskeyCredentials;
  rpId: string;
  rpName: string;
  userName: string;
  salt: Uint8Array;
  signal?: AbortSignal;
}): Promise<{
  credentialId: string;
  prfOutput: Uint8Array;
  registration: { challenge: string; attestation: PasskeyAttestation };
}> {
  const challenge = randomBytes();
  const credential = await ceremony(params.signal, () =>
    params.credentials.create({
      publicKey: {
        challenge,
        rp: { id: params.rpId, name: params.rpName },
        user: { id: randomBytes(), name: params.userName, displayName: params.userName },
        pubKeyCredParams: [
          { type: "public-key", alg: -7 },
          { type: "public-key", alg: -257 },
        ],
        authenticatorSelection: {
          residentKey: "required",
          requireResidentKey: true,
          userVerification: "required",
        },
        timeout: PASSKEY_TIMEOUT_MS,
        extensions: { prf: { eval: { first: params.salt } } } as AuthenticationExtensionsClientInputs,
      },
      ...(params.signal ? { signal: params.signal } : {}),
    }),
  );
  if (!credential) throw new PasskeyError("PASSKEY_FAILED");
  const { rawId, response } = credential as PublicKeyCredential;
  const credentialId = encodeBase64url(new Uint8Array(rawId));
  const attestation = response as AuthenticatorAttestationResponse;
  const registration = {
    challenge: toBase64Url(challenge),
    attestation: {
      credentialId,
      clientDataJson: toBase64Url(attestation.clientDataJSON),
      attestationObject: toBase64Url(attestation.attestationObject),
      transports: typeof attestation.getTransports === "function" ? attestation.getTransports() : [],
    },
  };
  const atCreation = prfOutputOf(credential);
  if (atCreation) return { credentialId, prfOutput: atCreation, registration };
  const results = (credential as PublicKeyCredential).getClientExtensionResults?.() as PrfExtensionResults;
  if (results?.prf?.enabled === false) throw new SignerError("PASSKEY_PRF_UNSUPPORTED");
  return { ...(await assertWithPrf({ ...params, credentialIds: [credentialId] })), registration };
}

/**
 * Whether this browser says it can evaluate the PRF extension (`getClientCapabilities`); undefined when
 * it does not say.
 */
export async function browserHasPrf(): Promise<boolean | undefined> {
  const pkc = (
    globalThis as { PublicKeyCredential?: { getClientCapabilities?: () => Promise<Record<string, boolean>> } }
  ).PublicKeyCredential;
  if (!pkc) return false;
  try {
    const capabilities = await pkc.getClientCapabilities?.();
    return capabilities ? capabilities["extension:prf"] === true : undefined;
  } catch {
    return undefined;
  }
}
