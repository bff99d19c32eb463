import { ErrorCode, type passkeyRegistrationSchema } from "@latchkey/protocol";
import { type AuthenticatorTransport, verifyRegistrationResponse } from "@simplewebauthn/server";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import { apiError } from "../../errors";
import { expectedOrigins } from "./expectedOrigins";

/** COSE algorithm ids the spec allows: ES256 and RS256. */
const SUPPORTED_ALGORITHMS = [-7, -257];

export interface VerifiedPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  aaguid: string;
}

/**
 * Verifies a registration (attestation) against the app's relying party: type, the client's challenge,
 * origin, rpIdHash, flags and the attestation statement (all by `verifyRegistrationResponse`). The admin
 * console passes its own relying party (features/admin/console/enrol.ts).
 */
export async function verifyPasskeyRegistration(
  app: Pick<App, "webauthn">,
  registration: z.output<typeof passkeyRegistrationSchema>,
): Promise<VerifiedPasskey> {
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: {
        id: registration.attestation.credentialId,
        rawId: registration.attestation.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: registration.attestation.clientDataJson,
          attestationObject: registration.attestation.attestationObject,
          transports: registration.attestation.transports as AuthenticatorTransport[],
        },
      },
      expectedChallenge: registration.challenge.replace(/=+$/, ""),
      expectedOrigin: expectedOrigins(app.webauthn.origins, registration.attestation.clientDataJson),
      expectedRPID: app.webauthn.rpId,
      // User verification is "preferred" (spec §5): asked for, not required.
      requireUserVerification: false,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch {
    // The library's reason stays in the service (it may echo what it compared); the client gets the code.
    throw apiError(ErrorCode.PASSKEY_VERIFICATION_FAILED, "Passkey registration failed");
  }
  if (!result.verified) throw apiError(ErrorCode.PASSKEY_VERIFICATION_FAILED, "Passkey registration failed");
  const { credential, aaguid } = result.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    transports: registration.attestation.transports,
    aaguid,
  };
}
