import { z } from "zod";
import { idSchema, orgIdSchema, otpCodeSchema, timestampMsSchema } from "../common";
import { stepUpProofFields } from "../keyManagement/activities";
import { multiFactorSchema } from "./email";
import { stampedRequestSchema } from "./stampedRequest";

/**
 * The second factor (TOTP). A change to the user's factors is a stamped *operation*: its signed body is
 * `{type, timestampMs, organizationId, parameters}` with one of the types below, and the parameters are
 * the ones inside the signed body. A stamp made for anything else (a whoami, a signature) is refused.
 */

export const multiFactorTypeSchema = z.literal("totp");

/**
 * Adding (request and verify) and removing a factor need a step-up proof, signed with the operation
 * (`stepUpProofFields`: the current email's `verificationToken`, or a `multiFactor` code of a factor the
 * user already had; the code that verifies a new factor proves nothing), unless the request is
 * passkey-stamped or the session comes from a fresh sign-in.
 */
export const multiFactorOperations = {
  OPERATION_TYPE_REQUEST_MULTI_FACTOR: z.object({
    multiFactorType: multiFactorTypeSchema,
    ...stepUpProofFields,
  }),
  OPERATION_TYPE_VERIFY_MULTI_FACTOR: z.object({
    multiFactorId: idSchema(128),
    multiFactorCode: otpCodeSchema,
    ...stepUpProofFields,
  }),
  OPERATION_TYPE_DELETE_MULTI_FACTORS: z.object({
    multiFactorIds: z.array(idSchema(128)).min(1).max(10),
    ...stepUpProofFields,
  }),
} as const;
export type MultiFactorOperationType = keyof typeof multiFactorOperations;

/** The signed body of a stamped operation. */
export const operationEnvelopeSchema = z.object({
  type: idSchema(128),
  timestampMs: timestampMsSchema,
  organizationId: orgIdSchema,
  parameters: z.record(z.string(), z.unknown()),
});

// The outer fields are the reference shape; when given they must equal the signed ones.
export const mfaRequestSchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorType: multiFactorTypeSchema.optional(),
});
export const mfaVerifySchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorId: idSchema(128).optional(),
  multiFactorCode: otpCodeSchema.optional(),
});
export const mfaDeleteSchema = z.object({
  stampedRequest: stampedRequestSchema,
  multiFactorIds: z.array(idSchema(128)).min(1).max(10).optional(),
});
export const mfaListSchema = z.object({ stampedRequest: stampedRequestSchema });
export const mfaValidateSchema = z.object({
  encryptedPayload: idSchema(4096),
  multiFactors: z.array(multiFactorSchema).min(1).max(5),
});

export interface MultiFactor {
  multiFactorId: string;
  multiFactorType: "totp";
}
/** The user's second factors after a change. */
export interface MultiFactorsResponse {
  multiFactors: MultiFactor[];
}
/** A new authenticator-app factor: its id and the otpauth:// URL to show as a QR code. */
export interface RequestMultiFactorResponse {
  multiFactorType: "totp";
  multiFactorId: string;
  multiFactorTotpUrl: string;
}
/** The credential bundle released by the right second-factor codes. */
export interface ValidateMultiFactorsResponse {
  payload: { credentialBundle: string };
  multiFactors: MultiFactor[];
}
