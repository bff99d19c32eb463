import { signerRoutes } from "@latchkey/protocol/wire";
import type { CreateReadWriteSessionResult, PasskeyCredentials } from "../../client/types";
import { ActivityError, PasskeyError, SignerError } from "../../errors";
import { completeSession } from "../../signer/completeSession";
import { fail } from "../../signer/state";
import { SignerStatus } from "../../signer/status";
import type {
  AuthenticateResult,
  PasskeyAuthenticateParams,
  PasskeyCeremony,
  PasskeyMethod,
  SignerBase,
} from "../../signer/types";

/**
 * Passkey sign-in and sign-up (spec §4–5). The pending prompt is this closure's: browsers allow one at a
 * time, so a new prompt (a sign-in or `addPasskey`) aborts the previous one, and a replaced prompt leaves
 * the state to the newer one. The WebAuthn code is loaded on first use (`import()`), not with the modal.
 *
 * @example
 * await signer.authenticate({ type: "passkey" });                   // an existing passkey
 * await signer.authenticate({ type: "passkey", createNew: true });  // a new passkey and account
 */
export function passkey(): PasskeyMethod {
  let pending: AbortController | undefined;
  let rootOrgId: string | undefined;

  function startCeremony(signer: SignerBase, signal?: AbortSignal): PasskeyCeremony {
    const options = signer._internal.options;
    const g = globalThis as {
      navigator?: { credentials?: PasskeyCredentials };
      PublicKeyCredential?: unknown;
      location?: { hostname?: string };
    };
    const credentials =
      options.credentials ??
      (typeof g.PublicKeyCredential === "function" && g.navigator?.credentials
        ? g.navigator.credentials
        : undefined);
    if (!credentials) throw new PasskeyError("WEBAUTHN_UNSUPPORTED");
    const rpId = options.rpId ?? g.location?.hostname;
    if (!rpId) throw new PasskeyError("RP_ID_REQUIRED");
    pending?.abort();
    const ceremony = new AbortController();
    pending = ceremony;
    if (signal?.aborted) ceremony.abort();
    signal?.addEventListener("abort", () => ceremony.abort(), { once: true });
    return {
      credentials,
      rpId,
      rpName: options.rpName ?? rpId,
      signal: ceremony.signal,
      isCurrent: () => pending === ceremony,
      done: () => {
        if (pending === ceremony) pending = undefined;
      },
    };
  }

  function userName(signer: SignerBase, email?: string): string {
    return (
      email ||
      `Passkey ${new Date(signer.sessionManager.clock.now()).toISOString().slice(0, 16).replace("T", " ")}`
    );
  }

  async function getRootOrgId(signer: SignerBase): Promise<string> {
    rootOrgId ??=
      signer._internal.options.rootOrgId ??
      (await signer.client.call(signerRoutes.signerConfig, {})).rootOrgId;
    return rootOrgId;
  }

  /**
   * A new passkey and account when `createNew` is set or the email is unknown, otherwise a login with a
   * discoverable passkey. Each is one prompt: the sign-up sends the attestation with the request for the
   * session; the login is a passkey-stamped create_read_write_session addressed to the root organisation.
   */
  async function authenticate(
    signer: SignerBase,
    params: PasskeyAuthenticateParams,
  ): Promise<AuthenticateResult> {
    await signer._internal.lifecycle.init();
    const { store, client, keyHolder, _internal } = signer;
    store.setState({
      error: null,
      status: SignerStatus.AUTHENTICATING_PASSKEY,
      authLinkingStatus: undefined,
    });
    _internal.emitter.emit("authenticating", { type: "passkey" });
    let ceremony: PasskeyCeremony | undefined;
    try {
      ceremony = startCeremony(signer, params.signal);
      const active = ceremony;
      const [webauthn, rootOrgId] = await Promise.all([import("./webauthn"), getRootOrgId(signer)]);
      let createNew = params.createNew ?? false;
      if (!createNew && params.email)
        createNew = !(await client.call(signerRoutes.lookup, { email: params.email })).orgId;
      const targetPublicKey = await keyHolder.initTargetKey();
      if (createNew) {
        const registration = await webauthn.createPasskey({
          credentials: ceremony.credentials,
          rpId: ceremony.rpId,
          rpName: ceremony.rpName,
          userName: userName(signer, params.email),
          signal: ceremony.signal,
        });
        const signup = await client.call(signerRoutes.signup, {
          passkey: registration,
          ...(params.email ? { email: params.email } : {}),
          targetPublicKey,
          expirationSeconds: _internal.expirationSeconds,
        });
        store.setState({ isNewUser: true });
        _internal.emitter.emit("newUserSignup", undefined);
        if (!signup.credentialBundle) throw new SignerError("INJECT_BUNDLE_FAILED");
        const user = await completeSession(signer, {
          bundle: signup.credentialBundle,
          orgId: signup.orgId,
          authenticatingType: "passkey",
          connectedEventName: "connectedPasskey",
          credentialId: registration.attestation.credentialId,
          isNewUser: true,
        });
        ceremony.done();
        return { status: SignerStatus.CONNECTED, user };
      }
      let credentialId = "";
      // The login: a read-write session, passkey-stamped and addressed to the app's root organisation;
      // the result names the user's organisation.
      const activity = await client.submit(
        "create_read_write_session",
        {
          type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
          organizationId: rootOrgId,
          parameters: { targetPublicKey, expirationSeconds: String(_internal.expirationSeconds) },
        },
        {
          stamper: async (body) => {
            const stamp = await webauthn.stampWithPasskey(body, {
              credentials: active.credentials,
              rpId: active.rpId,
              signal: active.signal,
              allowCredentials: [],
            });
            credentialId = stamp.credentialId;
            return stamp;
          },
        },
      );
      const session = (activity.result as { createReadWriteSessionResultV2?: CreateReadWriteSessionResult })
        .createReadWriteSessionResultV2;
      if (!session?.credentialBundle) {
        throw new ActivityError({
          id: activity.id,
          status: activity.status,
          failure: { code: "NO_RESULT", message: "The session activity carried no credential bundle" },
        });
      }
      const user = await completeSession(signer, {
        bundle: session.credentialBundle,
        orgId: session.organizationId,
        authenticatingType: "passkey",
        connectedEventName: "connectedPasskey",
        credentialId,
        isNewUser: false,
      });
      ceremony.done();
      return { status: SignerStatus.CONNECTED, user };
    } catch (error) {
      // A prompt replaced by a newer one leaves the state to the newer one.
      const superseded = ceremony ? !ceremony.isCurrent() : false;
      ceremony?.done();
      if (superseded) throw error;
      return fail(signer, error);
    }
  }

  return { types: ["passkey"], authenticate, startCeremony, userName };
}
