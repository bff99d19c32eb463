import { signerRoutes } from "@latchkey/protocol/wire";
import { type SignerApiError, SignerError } from "../errors";
import type { User } from "../session/types";
import { completeSession } from "../signer/completeSession";
import { fail } from "../signer/state";
import { SignerStatus } from "../signer/status";
import type { SignerBase } from "../signer/types";

/** What `validateMultiFactors` takes. */
export interface ValidateMultiFactorsParameters {
  /** The code from the user's authenticator app. */
  multiFactorCode: string;
  /** The factor asked for (`mfaStatus.mfaFactorId`); checked against the pending sign-in when given. */
  multiFactorId?: string;
}
/** What `validateMultiFactors` resolves with. */
export type ValidateMultiFactorsReturnType = User;
/** The errors `validateMultiFactors` may throw (discriminate on `name` and `code`). */
export type ValidateMultiFactorsErrorType =
  | SignerError<"NO_PENDING_MFA" | "MFA_FACTOR_MISMATCH">
  | SignerApiError<"INVALID_MFA_CODE" | "MFA_LOCKED" | "INVALID_MFA_PAYLOAD">;

/**
 * Finishes an OTP sign-in that needed a second factor: sends the pending payload with the TOTP code and
 * completes with the bundle it answers. A wrong code (INVALID_MFA_CODE) keeps the pending sign-in and
 * the status AWAITING_MFA_AUTH, so the user may try the next code.
 *
 * @example
 * const user = await validateMultiFactors(signer, { multiFactorCode: "123456" });
 */
export async function validateMultiFactors(
  signer: SignerBase,
  { multiFactorCode, multiFactorId }: ValidateMultiFactorsParameters,
): Promise<ValidateMultiFactorsReturnType> {
  await signer._internal.lifecycle.init();
  const temporary = signer.sessionManager.getTemporarySession();
  if (!temporary?.encryptedPayload || !temporary.mfaFactorId) throw new SignerError("NO_PENDING_MFA");
  if (multiFactorId && multiFactorId !== temporary.mfaFactorId) throw new SignerError("MFA_FACTOR_MISMATCH");
  try {
    const { payload } = await signer.client.call(signerRoutes.authValidateMultiFactors, {
      encryptedPayload: temporary.encryptedPayload,
      multiFactors: [{ multiFactorId: temporary.mfaFactorId, multiFactorCode }],
    });
    return await completeSession(signer, {
      bundle: payload.credentialBundle,
      orgId: temporary.orgId,
      authenticatingType: "otp",
    });
  } catch (error) {
    const wrongCode = (error as { code?: string }).code === "INVALID_MFA_CODE";
    return fail(signer, error, wrongCode ? SignerStatus.AWAITING_MFA_AUTH : SignerStatus.DISCONNECTED);
  }
}
