import type { Authenticator } from "../client/types";
import { type PasskeyCancelledError, PasskeyError, type SignerApiError, type SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";

/** What `addPasskey` takes. */
export interface AddPasskeyParameters {
  /** Aborts the prompt (e.g. the modal's Skip): rejects with a PasskeyCancelledError. */
  signal?: AbortSignal;
  /**
   * A fresh sign-in, when the session is not one (STEP_UP_REQUIRED; `stepUpMethodsOf(error)`); with
   * `{type: "passkey"}` an existing passkey signs the request (a second prompt).
   */
  stepUp?: StepUp;
}
/** The new passkey's authenticator id. */
export type AddPasskeyReturnType = string;
/** The errors `addPasskey` may throw (discriminate on `name` and `code`). */
export type AddPasskeyErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | PasskeyCancelledError
  | PasskeyError
  | SignerApiError<"PASSKEY_EXISTS" | "PASSKEY_VERIFICATION_FAILED" | "STEP_UP_REQUIRED">;

/**
 * Adds a passkey to the signed-in user and answers its authenticator id. The prompt excludes the user's
 * existing passkeys (an authenticator that holds one refuses: PASSKEY_ALREADY_REGISTERED); the passkey
 * is named `passkey-<timestamp ms>`. A newer passkey prompt aborts this one. A passkey is a way to sign
 * in, so the service asks for a fresh sign-in first: right after an email, passkey or authenticator-app
 * sign-in nothing more is needed; later (or after a social sign-in) it answers STEP_UP_REQUIRED, and
 * the call is made again with `stepUp`.
 *
 * @example
 * const authenticatorId = await addPasskey(signer);
 */
export async function addPasskey(
  signer: SignerBase,
  { signal, stepUp }: AddPasskeyParameters = {},
): Promise<AddPasskeyReturnType> {
  const user = await requireUser(signer);
  const passkeys = signer._internal.authMethods.passkey;
  const ceremony = passkeys.startCeremony(signer, signal);
  try {
    const [webauthn, { authenticators }] = await Promise.all([
      import("../authMethods/passkey/webauthn"),
      signer.client.query<{ authenticators: Authenticator[] }>("get_authenticators", {
        organizationId: user.orgId,
        userId: user.userId,
      }),
    ]);
    const registration = await webauthn.createPasskey({
      credentials: ceremony.credentials,
      rpId: ceremony.rpId,
      rpName: ceremony.rpName,
      userName: passkeys.userName(signer, user.email),
      excludeCredentials: authenticators.map((a) => ({
        credentialId: a.credentialId,
        transports: a.transports,
      })),
      signal: ceremony.signal,
    });
    const authenticatorName = `passkey-${signer.sessionManager.clock.now()}`;
    const activity = await withStepUp(
      signer,
      stepUp,
      ({ stamper, ...proof }) =>
        signer.client.submit(
          "create_authenticators",
          {
            type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
            organizationId: user.orgId,
            parameters: {
              userId: user.userId,
              authenticators: [{ authenticatorName, ...registration }],
              ...proof,
            },
          },
          { stamper },
        ),
      ceremony,
    );
    const { createAuthenticatorsResult } = activity.result as {
      createAuthenticatorsResult?: { authenticatorIds: string[] };
    };
    const [authenticatorId] = createAuthenticatorsResult?.authenticatorIds ?? [];
    if (!authenticatorId) throw new PasskeyError("PASSKEY_FAILED");
    return authenticatorId;
  } finally {
    ceremony.done();
  }
}
