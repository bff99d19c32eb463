import type { PasskeyStatus } from "../client/types";
import type { SignerBase } from "../signer/types";
import { type ListAuthMethodsErrorType, listAuthMethods } from "./listAuthMethods";

/** What `getPasskeyStatus` resolves with. */
export type GetPasskeyStatusReturnType = PasskeyStatus;
/** The errors `getPasskeyStatus` may throw (discriminate on `name` and `code`). */
export type GetPasskeyStatusErrorType = ListAuthMethodsErrorType;

/**
 * Whether the signed-in user has a passkey, and which (from the auth-method listing).
 *
 * @example
 * const { isPasskeyAdded } = await getPasskeyStatus(signer);
 */
export async function getPasskeyStatus(signer: SignerBase): Promise<GetPasskeyStatusReturnType> {
  const { passkeys } = await listAuthMethods(signer);
  return { isPasskeyAdded: passkeys.length > 0, passkeys };
}
