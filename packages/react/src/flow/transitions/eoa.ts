import { connectExternalWallet, type WalletConnectorInfo } from "@latchkey/core";
import type { FlowInternals } from "../internals";

/**
 * External wallets (spec §4 "External wallet"): the wallet list (pick_eoa), then eoa_connect for an
 * injected wallet or wallet_connect (with the pairing URI for the QR code) for WalletConnect, while the
 * wallet connects and signs the SIWE message. Success tracks `eoa_connected` and completes; a failure
 * stays on the step with the error (the connection-error view). Leaving the step (Cancel, Back, Close)
 * abandons the attempt and leaves the wallet disconnected.
 */
export function eoaTransitions(flow: FlowInternals) {
  const start = async (connector: WalletConnectorInfo): Promise<void> => {
    flow.last.wallet = connector;
    const type = connector.type === "walletConnect" ? "wallet_connect" : "eoa_connect";
    flow.go({ type, connector });
    const attempt = flow.beginAttempt("wallet", type);
    try {
      await connectExternalWallet(flow.signer, {
        connectorId: connector.id,
        signal: attempt.signal,
        onDisplayUri: (uri) => {
          if (!attempt.signal.aborted && flow.step.type === "wallet_connect")
            flow.go({ type: "wallet_connect", connector, uri });
        },
      });
      if (attempt.signal.aborted) return;
      flow.track("eoa_connected");
      flow.complete();
    } catch (error) {
      if (attempt.signal.aborted) return;
      flow.showConnectionError({
        type,
        connector,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    } finally {
      attempt.end();
    }
  };
  return {
    /** 'Continue with a wallet': the wallet list. */
    pick(): void {
      flow.go({ type: "pick_eoa" });
    },
    /** A wallet picked in the list. */
    start,
    /** Try again from the wallet's error view: the same wallet. */
    retry: (): Promise<void> =>
      flow.last.wallet ? start(flow.last.wallet) : Promise.resolve(flow.go({ type: "pick_eoa" })),
  };
}

export type EoaTransitions = ReturnType<typeof eoaTransitions>;
