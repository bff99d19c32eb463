import { getPasskeyPrfSupport } from "@latchkey/core";
import { useEffect, useState } from "react";
import { LockIcon, PasskeyIllustration } from "../../components/PasskeyIllustration";
import { useLatchkeyContext } from "../../context";
import { MethodStyles } from "../../styles/Styles";
import type { StepProps } from "../types";
import { custodyErrorText, custodyTexts } from "./texts";

/**
 * wallet_protect (split custody): after sign-up, a way to restore this device's part of the wallet — a
 * passkey first when the browser has PRF, else a recovery code; the code is shown once, with Copy and
 * an 'I saved it' confirmation. 'Not now' says first what losing the device means.
 */
export function WalletProtectStep({ transitions, step, ui }: StepProps<"wallet_protect">) {
  const { locale } = useLatchkeyContext();
  const texts = custodyTexts(locale);
  const t = transitions.custody;
  const [prf, setPrf] = useState<boolean | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    let live = true;
    void getPasskeyPrfSupport().then((has) => {
      if (live) setPrf(has);
    });
    return () => {
      live = false;
    };
  }, []);
  const busy = step.status === "verifying";

  if (step.view === "code" && step.code) {
    const code = step.code;
    return (
      <div className="lk-center" data-testid="lk-wallet-code">
        <MethodStyles />
        <h2 className="lk-title">{texts.codeTitle}</h2>
        <p className="lk-text">{texts.codeBody}</p>
        <p className="lk-grant lk-mono" data-testid="lk-recovery-code">
          <strong>{code}</strong>
        </p>
        <button
          type="button"
          className="lk-link"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(
              () => setCopied(true),
              () => {},
            );
          }}
        >
          {copied ? texts.copied : texts.copy}
        </button>
        <label className="lk-text">
          <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />{" "}
          {texts.savedIt}
        </label>
        <div className="lk-actions">
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={!saved}
            onClick={() => t.codeSaved()}
          >
            {texts.continue}
          </button>
        </div>
      </div>
    );
  }

  if (step.view === "risk") {
    return (
      <div className="lk-center" data-testid="lk-wallet-risk">
        <MethodStyles />
        <h2 className="lk-title">{texts.riskTitle}</h2>
        <p className="lk-text" role="alert">
          {texts.riskBody}
        </p>
        <div className="lk-actions">
          <button type="button" className="lk-btn lk-btn-primary" onClick={() => t.backToProtect()}>
            {texts.riskProtect}
          </button>
          <button type="button" className="lk-btn lk-btn-ghost" onClick={() => t.acceptRisk()}>
            {texts.riskAccept}
          </button>
        </div>
      </div>
    );
  }

  // A browser that says it has no PRF gets the code only; one that does not say tries the passkey first.
  const passkeyFirst = prf !== false;
  return (
    <div className="lk-center" data-testid="lk-wallet-protect">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse={busy} />
      <h2 className="lk-title">{texts.protectTitle}</h2>
      <p className="lk-text">{texts.protectBody}</p>
      {step.error && (
        <p className="lk-inline-error" role="alert">
          {custodyErrorText(texts, step.error, "passkey")}
        </p>
      )}
      <div className="lk-actions">
        {passkeyFirst && (
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={busy}
            onClick={() => void t.protectWithPasskey()}
          >
            {busy && <span className="lk-spinner" aria-hidden />}
            <LockIcon /> {texts.protectWithPasskey}
          </button>
        )}
        <button
          type="button"
          className={passkeyFirst ? "lk-btn lk-btn-secondary" : "lk-btn lk-btn-primary"}
          disabled={busy}
          onClick={() => void t.protectWithCode()}
        >
          {texts.protectWithCode}
        </button>
        <button type="button" className="lk-btn lk-btn-ghost" disabled={busy} onClick={() => t.skipProtect()}>
          {texts.notNow}
        </button>
      </div>
    </div>
  );
}
