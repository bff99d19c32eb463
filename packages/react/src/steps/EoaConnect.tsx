import { WalletError } from "../components/WalletError";
import { WalletIcon } from "../components/WalletIcon";
import { MethodStyles, WalletStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * eoa_connect (spec §2): 'Connecting to {wallet}' while the wallet asks the user to connect (and to sign
 * the SIWE message); Cancel returns to initial. A failure shows the wallet's error view.
 */
export function EoaConnectStep({ transitions, step }: StepProps<"eoa_connect">) {
  const texts = useTexts();
  const { connector } = step;
  if (step.error) return <WalletError transitions={transitions} connector={connector} error={step.error} />;
  return (
    <div className="lk-center" aria-busy="true">
      <MethodStyles />
      <WalletStyles />
      <div className="lk-pulse">
        <div className="lk-provider-badge">
          <WalletIcon connector={connector} />
        </div>
      </div>
      <h2 className="lk-title">{texts.connectingTo(connector.name)}</h2>
      <p className="lk-text">{texts.eoaConnectBody}</p>
      <div className="lk-actions">
        <button
          type="button"
          className="lk-btn lk-btn-secondary"
          onClick={() => transitions.navigation.toInitial()}
        >
          {texts.cancel}
        </button>
      </div>
    </div>
  );
}
