import type { SignerError } from "../errors";
import type { User } from "../session/types";
import { requireUser as guard } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `requireUser` resolves with. */
export type RequireUserReturnType = User;
/** The errors `requireUser` may throw (discriminate on `name` and `code`). */
export type RequireUserErrorType = SignerError<"NOT_AUTHENTICATED">;

/**
 * The signed-in user; throws 'Signer not authenticated' (NOT_AUTHENTICATED) when there is none or the
 * session has expired. Awaits `init()`, so a stored session counts.
 *
 * @example
 * const { address } = await requireUser(signer);
 */
export function requireUser(signer: SignerBase): Promise<RequireUserReturnType> {
  return guard(signer);
}
