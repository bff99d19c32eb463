import {
  type ExportStepUp,
  type ExportWalletParameters,
  type ExportWalletReturnType,
  type StepUpMethod,
  stepUpMethodsOf,
} from "@latchkey/core";
import { useEffect, useRef, useState } from "react";
import { useLatchkeyContext } from "../context";
import { useExportAccount } from "../hooks/useExportAccount";
import { useUser } from "../hooks/useUser";
import type { Texts } from "../texts/types";
import { useTexts } from "../texts/useTexts";
import { OtpInput } from "./OtpInput";
import { Root } from "./Root";

type ExportFrameTexts = NonNullable<ExportWalletParameters["texts"]>;

/** A code the user is typing to confirm it's them: mailed to their email, or from their app. */
type PendingCode = { type: "email"; otpId: string; email: string } | { type: "totp"; multiFactorId: string };

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
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const { exportWalletAsync, isExporting, reset } = useExportAccount();
  const frameRef = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState<ExportWalletReturnType | null>(null);
  const [stepUp, setStepUp] = useState<StepUpMethod[] | null>(null);
  const [pending, setPending] = useState<PendingCode | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
      setPending(null);
      return null;
    } catch (e) {
      const methods = stepUpMethodsOf(e);
      if (methods) {
        setStepUp(methods);
        setPending(null);
        if (!proof) return null;
      }
      const text = errorText(texts, e);
      setError(text);
      return text;
    }
  }

  async function startCode(method: "email" | "totp") {
    setBusy(true);
    setError(null);
    try {
      if (method === "email") {
        const email = user?.email;
        if (!email) return;
        const { otpId } = await signer.sendVerificationCode({ contact: email });
        setPending({ type: "email", otpId, email });
      } else {
        const [factor] = await signer.getMfaFactors();
        if (factor) setPending({ type: "totp", multiFactorId: factor.multiFactorId });
      }
    } catch (e) {
      setError(errorText(texts, e));
    } finally {
      setBusy(false);
    }
  }

  function hide() {
    shown?.close();
    setShown(null);
    reset();
  }

  const working = isExporting || busy;
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
          <section className="lk-step-up" aria-label={texts.stepUpTitle} style={{ display: "grid", gap: 8 }}>
            <h3 style={{ margin: 0 }}>{texts.stepUpTitle}</h3>
            {pending ? (
              <>
                <p style={{ margin: 0 }}>
                  {pending.type === "email"
                    ? texts.stepUpCodeSent(pending.email)
                    : texts.enterAuthenticatorCode}
                </p>
                <OtpInput
                  disabled={working}
                  onInvalid={setError}
                  onSubmit={(code) =>
                    run(
                      pending.type === "email"
                        ? { type: "email", otpId: pending.otpId, verificationCode: code }
                        : { type: "totp", multiFactorId: pending.multiFactorId, code },
                    )
                  }
                />
              </>
            ) : (
              <>
                <p style={{ margin: 0 }}>{texts.stepUpBody}</p>
                {stepUp.includes("email") && user?.email ? (
                  <button
                    type="button"
                    className="lk-btn lk-btn-secondary"
                    disabled={working}
                    onClick={() => void startCode("email")}
                  >
                    {texts.stepUpSendCode}
                  </button>
                ) : null}
                {stepUp.includes("passkey") ? (
                  <button
                    type="button"
                    className="lk-btn lk-btn-secondary"
                    disabled={working}
                    onClick={() => void run({ type: "passkey" })}
                  >
                    {texts.stepUpUsePasskey}
                  </button>
                ) : null}
                {stepUp.includes("totp") ? (
                  <button
                    type="button"
                    className="lk-btn lk-btn-secondary"
                    disabled={working}
                    onClick={() => void startCode("totp")}
                  >
                    {texts.stepUpUseTotp}
                  </button>
                ) : null}
              </>
            )}
            <button
              type="button"
              className="lk-btn lk-btn-secondary"
              disabled={working}
              onClick={() => {
                setStepUp(null);
                setPending(null);
                setError(null);
                reset();
              }}
            >
              {texts.cancel}
            </button>
          </section>
        ) : null}
        {!stepUp && !shown ? (
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={working}
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
