import { signerRoutes } from "@latchkey/protocol/wire";
import type { MultiFactor, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `removeMfa` takes. */
export interface RemoveMfaParameters {
  multiFactorIds: string[];
  /**
   * A fresh sign-in, when the session is not one (an email-code sign-in older than five minutes, or a
   * social sign-in): the service answers STEP_UP_REQUIRED and `stepUpMethodsOf(error)` says what counts.
   */
  stepUp?: StepUp;
}
/** The user's factors that remain. */
export type RemoveMfaReturnType = MultiFactor[];
/** The errors `removeMfa` may throw (discriminate on `name` and `code`). */
export type RemoveMfaErrorType =
  | SignerError<"NOT_CONNECTED">
  | SignerApiError<"MFA_FACTOR_NOT_FOUND" | "STEP_UP_REQUIRED">;

/**
 * Removes second factors from the signed-in user; the service asks for a fresh sign-in first
 * (STEP_UP_REQUIRED: a code of the factor itself will do, as `stepUp`).
 *
 * @example
 * await removeMfa(signer, { multiFactorIds: [multiFactorId] });
 */
export async function removeMfa(
  signer: SignerBase,
  params: RemoveMfaParameters,
): Promise<RemoveMfaReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  const { multiFactors } = await withStepUp(signer, params.stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.authDeleteMultiFactors, {
      organizationId: user.orgId,
      parameters: { multiFactorIds: params.multiFactorIds, ...proof },
      outer: { multiFactorIds: params.multiFactorIds },
      stamper,
    }),
  );
  return multiFactors;
}
