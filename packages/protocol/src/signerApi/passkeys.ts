import { z } from "zod";
import {
  base64urlNoPadSchema,
  emailSchema,
  expirationSecondsSchema,
  p256PublicKeyHexSchema,
} from "../common";
import { passkeyRegistrationSchema } from "../keyManagement/activities";

/** Passkey sign-up and the passkey stamp (DESIGN §3.2, §5). */

export {
  passkeyAttestationSchema,
  passkeyRegistrationSchema,
  transportSchema,
} from "../keyManagement/activities";

export const passkeySignupRequestSchema = z.object({
  passkey: passkeyRegistrationSchema,
  email: emailSchema.optional(),
  /** Optional: a session bundle sealed to this key comes back at once (sign-up in one passkey prompt). */
  targetPublicKey: p256PublicKeyHexSchema.optional(),
  expirationSeconds: expirationSecondsSchema.optional(),
});
export type PasskeySignupRequest = z.input<typeof passkeySignupRequestSchema>;

/**
 * The `X-Stamp-WebAuthn` header's JSON: an assertion whose challenge is hex(sha256(body)). Fields are
 * base64url without padding, their one encoding.
 */
export const webauthnStampSchema = z.object({
  credentialId: base64urlNoPadSchema.max(1024),
  authenticatorData: base64urlNoPadSchema.max(4096),
  clientDataJson: base64urlNoPadSchema.max(8192),
  signature: base64urlNoPadSchema.max(1024),
  userHandle: base64urlNoPadSchema.max(1024).optional(),
});
export type WebauthnStamp = z.infer<typeof webauthnStampSchema>;
