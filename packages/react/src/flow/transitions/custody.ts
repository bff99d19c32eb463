import type { FlowInternals } from "../internals";

/**
 * Split custody's steps (docs/split-custody.md §4): protect the wallet after sign-up (a passkey's PRF, or
 * a recovery code shown once), restore it on a new device, and the risk of keeping it on this device
 * only. The signer does the work (`protectWallet`, `restoreWallet`); these move the steps.
 */
export function custodyTransitions(flow: FlowInternals) {
  return {
    /** wallet_protect's passkey button: a passkey's PRF output encrypts the recovery copy. */
    async protectWithPasskey(): Promise<void> {
      flow.go({ type: "wallet_protect", view: "choose", status: "verifying" });
      const attempt = flow.beginAttempt("passkey", "wallet_protect");
      try {
        await flow.signer.protectWallet({ method: "passkey", signal: attempt.signal });
        if (attempt.signal.aborted) return;
        flow.track("wallet_protected");
        flow.finish();
      } catch (error) {
        if (attempt.signal.aborted) return;
        flow.go({ type: "wallet_protect", view: "choose", status: "base", error: error as Error });
      } finally {
        attempt.end();
      }
    },

    /** wallet_protect's code button: a new recovery code, shown once. */
    async protectWithCode(): Promise<void> {
      flow.go({ type: "wallet_protect", view: "choose", status: "verifying" });
      try {
        const { code } = await flow.signer.protectWallet({ method: "code" });
        flow.go({ type: "wallet_protect", view: "code", ...(code ? { code } : {}) });
      } catch (error) {
        flow.go({ type: "wallet_protect", view: "choose", status: "base", error: error as Error });
      }
    },

    /** The code view's 'I saved it' and Continue. */
    codeSaved(): void {
      flow.track("wallet_protected");
      flow.finish();
    },

    /** Not now: what losing the device means, first. */
    skipProtect(): void {
      flow.go({ type: "wallet_protect", view: "risk" });
    },

    /** The risk view's 'Protect my wallet'. */
    backToProtect(): void {
      flow.go({ type: "wallet_protect", view: "choose" });
    },

    /** The risk view's 'I understand': the wallet stays on this device only. */
    acceptRisk(): void {
      flow.track("wallet_protect_skipped");
      flow.finish();
    },

    /** wallet_restore with the passkey the wallet was protected with. */
    async restoreWithPasskey(): Promise<void> {
      flow.go({ type: "wallet_restore", status: "verifying" });
      const attempt = flow.beginAttempt("passkey", "wallet_restore");
      try {
        await flow.signer.restoreWallet({ passkey: true, signal: attempt.signal });
        if (attempt.signal.aborted) return;
        flow.track("wallet_restored");
        flow.finish();
      } catch (error) {
        if (attempt.signal.aborted) return;
        flow.go({ type: "wallet_restore", status: "base", error: error as Error });
      } finally {
        attempt.end();
      }
    },

    /** wallet_restore with the recovery code the user typed. */
    async restoreWithCode(recoveryCode: string): Promise<void> {
      flow.go({ type: "wallet_restore", status: "verifying" });
      try {
        await flow.signer.restoreWallet({ recoveryCode });
        flow.track("wallet_restored");
        flow.finish();
      } catch (error) {
        flow.go({ type: "wallet_restore", status: "base", error: error as Error });
      }
    },

    /** Not now: signed in, but this device cannot sign until the wallet is restored. */
    skipRestore(): void {
      flow.finish();
    },
  };
}

export type CustodyTransitions = ReturnType<typeof custodyTransitions>;
