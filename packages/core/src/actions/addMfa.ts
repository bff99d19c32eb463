import { type RequestMultiFactorResponse, signerRoutes } from "@latchkey/protocol/wire";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `addMfa` takes. */
export interface AddMfaParameters {
  multiFactorType: "totp";
  /**
   * A fresh sign-in, when the session is not one (an email-code sign-in older than five minutes, or a
   * social sign-in): the service answers STEP_UP_REQUIRED and `stepUpMethodsOf(error)` says what counts.
   */
  stepUp?: StepUp;
}
/** The new factor's id and the `otpauth://` URL to show as a QR code (`multiFactorTotpUrl`). */
export type AddMfaReturnType = RequestMultiFactorResponse;
/** The errors `addMfa` may throw (discriminate on `name` and `code`). */
export type AddMfaErrorType = SignerError<"NOT_CONNECTED"> | SignerApiError;

/**
 * Starts adding a TOTP factor to the signed-in user; `verifyMfa` with a first code confirms it (within
 * five minutes, else it needs its own `stepUp`). A second factor changes how the user signs in, so the
 * service asks for a fresh sign-in first (STEP_UP_REQUIRED; `stepUpMethodsOf(error)`), then `stepUp`.
 *
 * @example
 * const { multiFactorId, multiFactorTotpUrl } = await addMfa(signer);
 */
export async function addMfa(
  signer: SignerBase,
  { multiFactorType, stepUp }: AddMfaParameters = { multiFactorType: "totp" },
): Promise<AddMfaReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  return withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.authRequestMultiFactor, {
      organizationId: user.orgId,
      parameters: { multiFactorType, ...proof },
      outer: { multiFactorType },
      stamper,
    }),
  );
}
