import type { MultiFactor, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `removeMfa` takes. */
export interface RemoveMfaParameters {
  multiFactorIds: string[];
}
/** The user's factors that remain. */
export type RemoveMfaReturnType = MultiFactor[];
/** The errors `removeMfa` may throw (discriminate on `name` and `code`). */
export type RemoveMfaErrorType = SignerError<"NOT_CONNECTED"> | SignerApiError<"MFA_FACTOR_NOT_FOUND">;

/**
 * Removes second factors from the signed-in user.
 *
 * @example
 * await removeMfa(signer, { multiFactorIds: [multiFactorId] });
 */
export async function removeMfa(
  signer: SignerBase,
  params: RemoveMfaParameters,
): Promise<RemoveMfaReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  return (await signer.client.authDeleteMultiFactors({ orgId: user.orgId, ...params })).multiFactors;
}
