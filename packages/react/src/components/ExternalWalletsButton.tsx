import type { AuthTransitions } from "../flow/transitions";
import { WalletStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { ExternalWalletsSection } from "../types";
import { WalletGlyph } from "./WalletIcon";

/** 'Continue with a wallet': opens the wallet list (pick_eoa). */
export function ExternalWalletsButton({
  transitions,
  section,
}: {
  transitions: AuthTransitions;
  section: ExternalWalletsSection;
}) {
  const texts = useTexts();
  return (
    <>
      <WalletStyles />
      <button type="button" className="lk-btn lk-btn-secondary" onClick={() => transitions.eoa.pick()}>
        <span className="lk-wallet-icon" style={{ width: 20, height: 20 }}>
          <WalletGlyph />
        </span>
        {section.label ?? texts.continueWithWallet}
      </button>
    </>
  );
}
