import { SignerError } from "../errors";
import type { User } from "../session/types";
import type { SignerBase } from "./types";

/** The codes a missing user may be reported with (see {@link requireUser}). */
export type NoUserErrorCode = "NOT_AUTHENTICATED" | "MUST_BE_AUTHENTICATED" | "NOT_CONNECTED";

/**
 * The one precondition of every call made for the signed-in user: awaits `init()` (so a stored session
 * counts), then answers the user, or throws `error` when there is none or the session has expired (a
 * tab that slept past the expiry has not run its timer yet: it is signed out here).
 *
 * `error` only picks the message: NOT_AUTHENTICATED ('Signer not authenticated') everywhere, except
 * where the spec's catalogue (§8) and the tests keep an older text for a method — MUST_BE_AUTHENTICATED
 * for `removeOauthProvider`, NOT_CONNECTED for the MFA calls.
 */
export async function requireUser(
  signer: SignerBase,
  { error = "NOT_AUTHENTICATED" }: { error?: NoUserErrorCode } = {},
): Promise<User> {
  await signer._internal.lifecycle.init();
  const user = signer.store.getState().user;
  if (!user) throw new SignerError(error);
  if (!signer.sessionManager.getSession()) {
    await signer._internal.lifecycle.disconnectLocally(true);
    throw new SignerError(error);
  }
  return user;
}

/**
 * {@link requireUser} for a signature: also refuses, with what to do, a split wallet whose part this
 * device does not hold (USER_SHARE_REQUIRED: `restoreWallet` first).
 */
export async function requireSigningUser(signer: SignerBase): Promise<User> {
  const user = await requireUser(signer);
  if (signer.store.getState().walletAccess === "restore_needed") throw new SignerError("USER_SHARE_REQUIRED");
  return user;
}
