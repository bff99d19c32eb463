import {
  type ExportStepUp,
  type ExportWalletParameters,
  type ExportWalletReturnType,
  type StepUpMethod,
  stepUpMethodsOf,
} from "@latchkey/core";
import { useEffect, useRef, useState } from "react";
import { useExportAccount } from "../hooks/useExportAccount";
import type { Texts } from "../texts/types";
import { useTexts } from "../texts/useTexts";
import { Root } from "./Root";
import { StepUpPrompt } from "./StepUpPrompt";

type ExportFrameTexts = NonNullable<ExportWalletParameters["texts"]>;

function errorText(texts: Texts, error: unknown): string {
  const e = error as { code?: string; message?: string } | null;
  if (e?.code === "INVALID_EXPORT_BUNDLE") return texts.exportInvalid;
  if (e?.code === "INVALID_OTP" || e?.code === "INVALID_MFA_CODE") return texts.otpInvalid;
  return (e?.code && texts.errors[e.code]) || e?.message || texts.errorBody;
}

/**
 * Wallet export for the signed-in user: a warning, 'Show recovery phrase', and the service's export
 * frame, which alone shows the words (and, on the user's click, the EVM private key and the Solana secret
 * key). When the sign-in is older than five minutes it asks 'Confirm it's you' — a code to the user's
 * email, their passkey or their authenticator app — and then shows the phrase.
 *
 * @example
 * <ExportAccount /> // e.g. on an account page
 */
export function ExportAccount({ className }: { className?: string }) {
  const texts = useTexts();
  const { exportWalletAsync, isExporting, reset } = useExportAccount();
  const frameRef = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState<ExportWalletReturnType | null>(null);
  const [stepUp, setStepUp] = useState<StepUpMethod[] | null>(null);
  // Counts the service's requests for a fresh sign-in: each new one shows the choice of method again.
  const [round, setRound] = useState(0);
  const [error, setError] = useState<string | null>(null);

  // The words go with the component: leaving the page closes the frame.
  useEffect(() => () => shown?.close(), [shown]);

  const frameTexts: ExportFrameTexts = {
    phraseTitle: texts.exportPhraseTitle,
    showEvmKey: texts.exportShowEvmKey,
    showSolanaKey: texts.exportShowSolanaKey,
    evmKeyTitle: texts.exportEvmKeyTitle,
    solanaKeyTitle: texts.exportSolanaKeyTitle,
    invalidBundle: texts.exportInvalid,
  };

  /** Runs the export; answers an error text, or null once the phrase shows. */
  async function run(proof?: ExportStepUp): Promise<string | null> {
    const container = frameRef.current;
    if (!container) return texts.errorBody;
    setError(null);
    try {
      const result = await exportWalletAsync({
        iframeContainer: container,
        texts: frameTexts,
        ...(proof ? { stepUp: proof } : {}),
      });
      setShown(result);
      setStepUp(null);
      return null;
    } catch (e) {
      const methods = stepUpMethodsOf(e);
      if (methods) {
        setStepUp(methods);
        setRound((n) => n + 1);
        if (!proof) return null;
      }
      const text = errorText(texts, e);
      setError(text);
      return text;
    }
  }

  function hide() {
    shown?.close();
    setShown(null);
    reset();
  }

  return (
    <Root className={className}>
      <section className="lk-export" aria-label={texts.exportTitle} style={{ display: "grid", gap: 12 }}>
        <h2 className="lk-title" style={{ textAlign: "left", margin: 0 }}>
          {texts.exportTitle}
        </h2>
        <p style={{ margin: 0 }}>{texts.exportBody}</p>
        {error ? (
          <p className="lk-banner" role="alert">
            {error}
          </p>
        ) : null}
        {stepUp && !shown ? (
          <StepUpPrompt
            key={round}
            methods={stepUp}
            body={texts.stepUpBody}
            disabled={isExporting}
            onProof={run}
            onError={setError}
            onSendCode={() => setError(null)}
            describeError={(e) => errorText(texts, e)}
            onCancel={() => {
              setStepUp(null);
              setError(null);
              reset();
            }}
          />
        ) : null}
        {!stepUp && !shown ? (
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={isExporting}
            onClick={() => void run()}
          >
            {texts.exportReveal}
          </button>
        ) : null}
        <div ref={frameRef} className="lk-export-frame" />
        {shown ? (
          <button type="button" className="lk-btn lk-btn-secondary" onClick={hide}>
            {texts.exportHide}
          </button>
        ) : null}
      </section>
    </Root>
  );
}
