import type { SessionChange } from "../session/sessionManager";
import type { Session } from "../session/types";
import { handleReturn, takeReturnParams } from "./returnParams";
import { SignerStatus } from "./status";
import type { Lifecycle, SignerBase } from "./types";

/**
 * The session lifecycle of one signer: `init()` (URL return, stored session, watching other tabs and the
 * expiry), local sign-out and `destroy()`. Its state (the init promise, the watcher, the bundle in use)
 * lives in this closure.
 */
export function createLifecycle(signer: SignerBase): Lifecycle {
  const { store, sessionManager, keyHolder } = signer;
  let started: Promise<void> | undefined;
  let unwatch: (() => void) | undefined;
  let currentBundle: string | undefined;

  async function restore(session: Session | null): Promise<void> {
    if (!session) {
      currentBundle = undefined;
      store.setState({ status: SignerStatus.DISCONNECTED });
      return;
    }
    try {
      await keyHolder.injectCredentialBundle(session.bundle);
      currentBundle = session.bundle;
      // Split custody: whether this device still holds its part (and the share key, before a signature).
      if (session.user.custody === "split")
        await (await import("./custody")).refreshWalletAccess(signer, session.user);
      else store.setState({ walletAccess: "service" });
      store.setState({ user: session.user });
      store.setState({ status: SignerStatus.CONNECTED });
    } catch {
      // A bundle the key holder can no longer open (its target key is gone) is a dead session.
      sessionManager.clearSession();
      currentBundle = undefined;
      store.setState({ user: null });
      store.setState({ status: SignerStatus.DISCONNECTED });
    }
  }

  async function disconnectLocally(clearTargetKey: boolean): Promise<void> {
    currentBundle = undefined;
    try {
      await keyHolder.clear({ targetKey: clearTargetKey });
    } finally {
      store.setState({ user: null });
      store.setState({
        status: SignerStatus.DISCONNECTED,
        otpId: undefined,
        isNewUser: undefined,
        authLinkingStatus: undefined,
        mfaStatus: { mfaRequired: false },
        walletAccess: undefined,
        recovery: undefined,
      });
    }
  }

  async function onSessionChange(change: SessionChange): Promise<void> {
    if (change.reason === "expired") return disconnectLocally(true);
    // Another tab signed out: it already cleared the shared target key.
    if (!change.session) return disconnectLocally(false);
    if (change.session.bundle === currentBundle) {
      store.setState({ user: change.session.user });
      return;
    }
    await restore(change.session);
  }

  async function start(): Promise<void> {
    const params = takeReturnParams(signer._internal.window);
    await handleReturn(signer, params, "beforeSession");
    if (!store.getState().user) await restore(sessionManager.getSession());
    const temporary = sessionManager.getTemporarySession();
    if (temporary?.otpId && !store.getState().otpId) store.setState({ otpId: temporary.otpId });
    if (temporary?.authLinking && !store.getState().authLinkingStatus && !store.getState().user)
      store.setState({ authLinkingStatus: temporary.authLinking });
    // After the stored session is read, so a prompt's status is the last word.
    await handleReturn(signer, params, "afterSession");
    unwatch = sessionManager.watch((change) => {
      void onSessionChange(change);
    });
  }

  return {
    init: () => {
      started ??= start();
      return started;
    },
    disconnectLocally,
    adoptBundle: (bundle) => {
      currentBundle = bundle;
    },
    destroy: () => {
      unwatch?.();
      keyHolder.destroy?.();
    },
  };
}
