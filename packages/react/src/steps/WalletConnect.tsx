import { useEffect, useState } from "react";
import { WalletError } from "../components/WalletError";
import { MethodStyles, WalletStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/** The pairing URI as an SVG QR code; the encoder loads with the first code drawn. */
function QrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    import("uqr").then(({ renderSVG }) => {
      if (live) setSvg(renderSVG(uri, { ecc: "M", border: 1 }));
    });
    return () => {
      live = false;
    };
  }, [uri]);
  return (
    <div className="lk-qr" data-testid="lk-walletconnect-qr" data-uri={uri}>
      {svg ? (
        // The SVG is the encoder's output for the URI (paths only), not markup from the URI itself.
        // biome-ignore lint/security/noDangerouslySetInnerHtml: uqr renders a fixed SVG grammar
        <div role="img" aria-label="QR code" dangerouslySetInnerHTML={{ __html: svg }} />
      ) : (
        <div className="lk-qr-placeholder">
          <div className="lk-spinner" aria-hidden />
        </div>
      )}
    </div>
  );
}

/**
 * wallet_connect (spec §2): 'Connecting to WalletConnect', the pairing URI as a QR code to scan with a
 * phone's wallet, and a button that copies it (for a wallet on this device). A failure shows the
 * wallet's error view (the configuration error when WalletConnect is not configured).
 */
export function WalletConnectStep({ transitions, step }: StepProps<"wallet_connect">) {
  const texts = useTexts();
  const [copied, setCopied] = useState(false);
  if (step.error)
    return <WalletError transitions={transitions} connector={step.connector} error={step.error} />;
  const { uri } = step;
  const copy = () => {
    if (!uri) return;
    void navigator.clipboard?.writeText(uri).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      },
      () => {},
    );
  };
  return (
    <div className="lk-center" aria-busy={!uri}>
      <MethodStyles />
      <WalletStyles />
      <h2 className="lk-title">{texts.connectingTo("WalletConnect")}</h2>
      <p className="lk-text">{texts.walletConnectBody}</p>
      {uri ? (
        <>
          <QrCode uri={uri} />
          <p className="lk-text">{texts.scanWithWallet}</p>
          <div className="lk-actions">
            <button type="button" className="lk-btn lk-btn-secondary" onClick={copy}>
              {copied ? texts.linkCopied : texts.copyLink}
            </button>
          </div>
        </>
      ) : (
        <div className="lk-spinner" aria-hidden />
      )}
    </div>
  );
}
