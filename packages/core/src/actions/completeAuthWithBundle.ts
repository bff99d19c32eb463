import type { SignerApiError, SignerError } from "../errors";
import type { User } from "../session/types";
import { completeSession } from "../signer/completeSession";
import type { CompleteAuthWithBundleParams, SignerBase } from "../signer/types";

/** What `completeAuthWithBundle` takes. */
export type CompleteAuthWithBundleParameters = CompleteAuthWithBundleParams;
/** What `completeAuthWithBundle` resolves with. */
export type CompleteAuthWithBundleReturnType = User;
/** The errors `completeAuthWithBundle` may throw (discriminate on `name` and `code`). */
export type CompleteAuthWithBundleErrorType = SignerError<"USER_NOT_FOUND"> | SignerApiError;

/**
 * Injects a credential bundle (from an OTP, a magic link or OAuth), reads the user with it and stores
 * the session; for a flow the app completes itself.
 *
 * @example
 * const user = await completeAuthWithBundle(signer, { bundle, orgId, authenticatingType: "email" });
 */
export async function completeAuthWithBundle(
  signer: SignerBase,
  params: CompleteAuthWithBundleParameters,
): Promise<CompleteAuthWithBundleReturnType> {
  await signer._internal.lifecycle.init();
  return completeSession(signer, params);
}
