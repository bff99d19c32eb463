import type { Grant, GrantPermissionsInput } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { Stamper } from "../client/types";
import type { SignerApiError, SignerError } from "../errors";
import type { KeyHolderStamp } from "../keyHolders/types";
import { requireSigningUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

export type { Grant, GrantPermissions, GrantPermissionsInput, GrantStatus } from "@latchkey/protocol";

/** What `createGrant` takes: what the app's backend may sign for the user, and until when. */
export type CreateGrantParameters = GrantPermissionsInput;
/** How `createGrant` is asked: a fresh sign-in when the session is not one. */
export interface CreateGrantOptions {
  /**
   * A fresh sign-in, when the session is not one (an email-code sign-in older than five minutes, or a
   * social sign-in): the service answers STEP_UP_REQUIRED and `stepUpMethodsOf(error)` says what counts.
   */
  stepUp?: StepUp;
}
/** The grant made: its id is what the app's backend signs under. */
export type CreateGrantReturnType = Grant;
/** The errors `createGrant` may throw (discriminate on `name` and `code`). */
export type CreateGrantErrorType =
  | SignerError<"NOT_AUTHENTICATED" | "USER_SHARE_REQUIRED">
  | SignerApiError<
      | "INVALID_REQUEST"
      | "RATE_LIMITED"
      | "STEP_UP_REQUIRED"
      | "INVALID_VERIFICATION_TOKEN"
      | "USER_SHARE_REQUIRED"
      | "USER_SHARE_INVALID"
    >;

/**
 * Grants the app's backend a permission to sign for the signed-in user within limits: the chains, the
 * contracts and functions it may call, the native coin it may move per transaction and per day, how many
 * signatures it may make, and until when. The backend (`@latchkey/backend`) then signs and sends under
 * the grant's id; each signature shows in the user's security activity. Show the user what they grant
 * first (the modal's consent step does). A grant lets the backend sign while the user is away, so the
 * service asks for a fresh sign-in first, as for a wallet export (STEP_UP_REQUIRED;
 * `stepUpMethodsOf(error)`), then `{ stepUp }`. For a split-custody wallet the key holder hands the
 * service its share of the wallet with the request (sealed to it for this body): the grant keeps it until
 * it is revoked or expires, so this device must hold it (USER_SHARE_REQUIRED: `restoreWallet` first).
 *
 * @example
 * const grant = await createGrant(signer, {
 *   chainIds: [8453],
 *   contracts: [token],
 *   selectors: ["0xa9059cbb"],
 *   maxOperations: 10,
 *   expiresAt: Date.now() + 7 * 24 * 3600_000,
 * });
 */
export async function createGrant(
  signer: SignerBase,
  permissions: CreateGrantParameters,
  { stepUp }: CreateGrantOptions = {},
): Promise<CreateGrantReturnType> {
  const user = await requireSigningUser(signer);
  const { grant } = await withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.createGrant, {
      organizationId: user.orgId,
      parameters: { permissions, ...proof },
      ...(stamper ? { stamper: withHolderShare(signer, stamper) } : {}),
    }),
  );
  return grant;
}

/**
 * A passkey stamps the request instead of the session key; the user share of a split wallet is still the
 * key holder's to seal for the body (its own stamp is not sent).
 */
function withHolderShare(signer: SignerBase, stamper: Stamper): Stamper {
  return async (body) => {
    const [stamp, held] = await Promise.all([
      stamper(body),
      signer.keyHolder.stamp(body) as Promise<KeyHolderStamp>,
    ]);
    return held.userShare ? { ...stamp, userShare: held.userShare } : stamp;
  };
}
