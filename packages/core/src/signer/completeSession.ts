import type { WhoamiResponse } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type { Hex } from "viem";
import { SignerError } from "../errors";
import type { User } from "../session/types";
import { fail, toStateError } from "./state";
import { SignerStatus } from "./status";
import type { CompleteAuthWithBundleParams, SignerBase } from "./types";

export interface CompleteSessionParameters extends CompleteAuthWithBundleParams {
  /** Whether this sign-in created the account; by default what the temporary session says. */
  isNewUser?: boolean;
  /** Who signed in, when the answer that carried the bundle said so (`/v1/otp`): no whoami then. */
  who?: WhoamiResponse;
}

const AUTHENTICATING_STATUS = {
  passkey: SignerStatus.AUTHENTICATING_PASSKEY,
  oauth: SignerStatus.AUTHENTICATING_OAUTH,
  email: SignerStatus.AUTHENTICATING_EMAIL,
  otp: SignerStatus.AUTHENTICATING_EMAIL,
} as const;

/**
 * The OpenID Connect claims of a social sign-in's ID token (spec §3 `User.claims`): read, not verified —
 * the service verified the token before it signed the user in; this is the app's copy of what it said.
 */
function claimsOf(idToken: string): { claims: Record<string, unknown> } | Record<string, never> {
  const part = idToken.split(".")[1];
  if (!part) return {};
  try {
    const json = atob(
      part
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .padEnd(Math.ceil(part.length / 4) * 4, "="),
    );
    const text = new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)));
    const claims: unknown = JSON.parse(text);
    return claims && typeof claims === "object" && !Array.isArray(claims)
      ? { claims: claims as Record<string, unknown> }
      : {};
  } catch {
    return {};
  }
}

/**
 * Changes the signed-in user's details (e.g. a new email) in the stored session and the state at once,
 * without a new sign-in: the session's keys stay as they are.
 *
 * @example
 * updateSessionUser(signer, { email: "new@example.com" });
 */
export function updateSessionUser(signer: SignerBase, patch: Partial<Pick<User, "email">>): User | null {
  const { store, sessionManager } = signer;
  const current = store.getState().user;
  if (!current) return null;
  const user: User = { ...current, ...patch };
  if (patch.email === undefined && "email" in patch) delete user.email;
  const session = sessionManager.getSession();
  if (session) sessionManager.setSession({ ...session, user });
  store.setState({ user });
  return user;
}

/**
 * The one place a session is written: injects the credential bundle (from an OTP, a magic link, a
 * passkey or OAuth) into the key holder, reads the user with it, stores the session, and only then
 * sets the user (so `connected` and the method's own event fire last). Every sign-in ends here.
 *
 * An OTP that answers an account-linking prompt also links the pending OAuth provider here, with the
 * new session, before the app hears `connected`; a failed link leaves the user signed in with the error
 * in the state (the next social sign-in asks again).
 */
export async function completeSession(signer: SignerBase, params: CompleteSessionParameters): Promise<User> {
  const { store, sessionManager, keyHolder, client } = signer;
  const type = params.authenticatingType ?? "email";
  store.setState({ status: AUTHENTICATING_STATUS[type], error: null });
  try {
    await keyHolder.injectCredentialBundle(params.bundle);
    const answered =
      params.who?.custody !== undefined
        ? params.who
        : await client.callStamped(signerRoutes.whoami, { organizationId: params.orgId });
    // Split custody (loaded for split users only): the wallet is made here at the first sign-in, before
    // the app hears `connected`.
    let who = answered;
    if (answered?.custody === "split") who = await (await import("./custody")).settleWallet(signer, answered);
    else store.setState({ walletAccess: "service", recovery: [] });
    if (!who?.userId || !who.address) throw new SignerError("USER_NOT_FOUND");
    const idToken = params.idToken ?? who.idToken;
    const user: User = {
      address: who.address as Hex,
      userId: who.userId,
      orgId: who.orgId,
      ...(who.email ? { email: who.email } : {}),
      ...(who.solanaAddress ? { solanaAddress: who.solanaAddress } : {}),
      ...(idToken ? { idToken } : {}),
      ...(type === "oauth" && idToken ? claimsOf(idToken) : {}),
      ...(params.credentialId ? { credentialId: params.credentialId } : {}),
      ...(who.custody === "split" ? { custody: "split" as const } : {}),
      ...(who.custody === "split" && who.walletId ? { walletId: who.walletId } : {}),
    };
    const linking = type === "otp" ? store.getState().authLinkingStatus : undefined;
    let linkError: unknown;
    if (linking?.providerName) {
      try {
        await client.callStamped(signerRoutes.addOauthProvider, {
          organizationId: user.orgId,
          parameters: {
            userId: user.userId,
            oauthProviders: [{ providerName: linking.providerName, oidcToken: linking.idToken }],
          },
        });
      } catch (error) {
        linkError = error;
      }
    }
    const temporary = sessionManager.getTemporarySession();
    // A magic link's session runs from when the service issued it, not from when the link was opened.
    const startMs =
      type === "email" && temporary?.issuedAtMs !== undefined
        ? temporary.issuedAtMs
        : sessionManager.clock.now();
    signer._internal.lifecycle.adoptBundle(params.bundle);
    sessionManager.setSession({
      type,
      user,
      bundle: params.bundle,
      expirationDateMs: startMs + signer._internal.expirationSeconds * 1000,
    });
    sessionManager.clearTemporarySession();
    store.setState((state) => ({
      status: SignerStatus.CONNECTED,
      otpId: undefined,
      mfaStatus: { mfaRequired: false },
      isNewUser: params.isNewUser ?? temporary?.isNewUser ?? state.isNewUser,
      authLinkingStatus: undefined,
      ...(linkError ? { error: toStateError(linkError) } : {}),
    }));
    const wasSignedIn = store.getState().user !== null;
    store.setState({ user });
    const connectedEventName = params.connectedEventName ?? "connected";
    if (!wasSignedIn && connectedEventName !== "connected")
      signer._internal.emitter.emit(connectedEventName, user);
    return user;
  } catch (error) {
    // Spec §4: a failed social sign-in keeps the status it had; any other failure disconnects.
    return fail(signer, error, type === "oauth" ? store.getState().status : SignerStatus.DISCONNECTED);
  }
}
