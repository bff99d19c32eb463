import { getWalletConnectors, watchWalletConnectors } from "@latchkey/core";
import { useEffect, useState } from "react";
import { WalletIcon } from "../components/WalletIcon";
import { useSigner } from "../hooks/useSigner";
import { MethodStyles, WalletStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * pick_eoa (spec §2): 'Select your wallet', each wallet the page announced (EIP-6963) with its icon and
 * name, then WalletConnect when configured; 'No wallets available' when there are none. A wallet that
 * announces itself later joins the list.
 */
export function PickEoaStep({ transitions }: StepProps<"pick_eoa">) {
  const texts = useTexts();
  const signer = useSigner();
  const [wallets, setWallets] = useState(() => getWalletConnectors(signer));
  useEffect(() => {
    setWallets(getWalletConnectors(signer));
    return watchWalletConnectors(signer, { onChange: setWallets });
  }, [signer]);
  return (
    <div className="lk-center">
      <MethodStyles />
      <WalletStyles />
      <h2 className="lk-title">{texts.selectYourWallet}</h2>
      {wallets.length === 0 ? (
        <p className="lk-empty">{texts.noWalletsAvailable}</p>
      ) : (
        <ul className="lk-wallets">
          {wallets.map((w) => (
            <li key={w.id}>
              <button
                type="button"
                className="lk-btn lk-btn-secondary"
                data-wallet={w.id}
                onClick={() => void transitions.eoa.start(w)}
              >
                <WalletIcon connector={w} />
                {w.name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
