import { signerRoutes } from "@latchkey/protocol/wire";
import type { MultiFactor, SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `getMfaFactors` resolves with. */
export type GetMfaFactorsReturnType = MultiFactor[];
/** The errors `getMfaFactors` may throw (discriminate on `name` and `code`). */
export type GetMfaFactorsErrorType = SignerError<"NOT_CONNECTED"> | SignerApiError;

/**
 * The signed-in user's second factors. Without a user: 'Signer not connected or initialized' (the
 * catalogue's text for the MFA calls).
 *
 * @example
 * const factors = await getMfaFactors(signer);
 */
export async function getMfaFactors(signer: SignerBase): Promise<GetMfaFactorsReturnType> {
  const user = await requireUser(signer, { error: "NOT_CONNECTED" });
  const { multiFactors } = await signer.client.callStamped(signerRoutes.authListMultiFactors, {
    organizationId: user.orgId,
  });
  return multiFactors;
}
