import { z } from "zod";
import { idSchema, otpCodeSchema, textSchema } from "../common";

/**
 * A step-up proof (a fresh sign-in), for export and for changes to how the user signs in: a
 * `verificationToken` (`/v1/init-otp` → `/v1/verify-otp` for the user's current email, verified within
 * `STEP_UP_MAX_AGE_MS`, spent by the change), or a `multiFactor` code of an authenticator-app factor the
 * user had before. A passkey-stamped request, or a session from an email, passkey or authenticator-app
 * sign-in within that time, needs neither.
 */
export const multiFactorProofSchema = z.object({
  multiFactorId: idSchema(128),
  multiFactorCode: otpCodeSchema,
});
export const stepUpProofFields = {
  verificationToken: textSchema(4096).optional(),
  multiFactor: multiFactorProofSchema.optional(),
};
