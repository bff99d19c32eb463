import { signerRoutes } from "@latchkey/protocol/wire";
import type { MultiFactorCode } from "../client/types";
import type { MultiFactor, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `verifyMfa` takes. */
export type VerifyMfaParameters = MultiFactorCode & {
  /** A fresh sign-in, when `addMfa`'s was more than five minutes ago (STEP_UP_REQUIRED). */
  stepUp?: StepUp;
};
/** The user's factors, the confirmed one included. */
export type VerifyMfaReturnType = MultiFactor[];
/** The errors `verifyMfa` may throw (discriminate on `name` and `code`). */
export type VerifyMfaErrorType =
  | SignerError<"NOT_CONNECTED">
  | SignerApiError<"INVALID_MFA_CODE" | "MFA_FACTOR_NOT_FOUND" | "STEP_UP_REQUIRED">;

/**
 * Confirms a factor started by `addMfa` with a code from the authenticator app.
 *
 * @example
 * await verifyMfa(signer, { multiFactorId, multiFactorCode: "123456" });
 */
export async function verifyMfa(
  signer: SignerBase,
  params: VerifyMfaParameters,
): Promise<VerifyMfaReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  const { stepUp, multiFactorId, multiFactorCode } = params;
  const { multiFactors } = await withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.authVerifyMultiFactor, {
      organizationId: user.orgId,
      parameters: { multiFactorId, multiFactorCode, ...proof },
      outer: { multiFactorId, multiFactorCode },
      stamper,
    }),
  );
  return multiFactors;
}
