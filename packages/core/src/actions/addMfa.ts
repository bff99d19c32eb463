import type { SignerClient } from "../client/signerClient";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `addMfa` takes. */
export interface AddMfaParameters {
  multiFactorType: "totp";
}
/** The new factor's id and the `otpauth://` URL to show as a QR code (`multiFactorTotpUrl`). */
export type AddMfaReturnType = Awaited<ReturnType<SignerClient["authRequestMultiFactor"]>>;
/** The errors `addMfa` may throw (discriminate on `name` and `code`). */
export type AddMfaErrorType = SignerError<"NOT_CONNECTED"> | SignerApiError;

/**
 * Starts adding a TOTP factor to the signed-in user; `verifyMfa` with a first code confirms it.
 *
 * @example
 * const { multiFactorId, multiFactorTotpUrl } = await addMfa(signer);
 */
export async function addMfa(
  signer: SignerBase,
  { multiFactorType }: AddMfaParameters = { multiFactorType: "totp" },
): Promise<AddMfaReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  return signer.client.authRequestMultiFactor({ orgId: user.orgId, multiFactorType });
}
