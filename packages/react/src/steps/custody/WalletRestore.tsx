import { type FormEvent, useState } from "react";
import { PasskeyIllustration } from "../../components/PasskeyIllustration";
import { useLatchkeyContext } from "../../context";
import { MethodStyles } from "../../styles/Styles";
import type { StepProps } from "../types";
import { custodyErrorText, custodyTexts, isRecoveryCode } from "./texts";

/**
 * wallet_restore (split custody): signed in on a device without its part of the wallet, the user brings
 * it here with the passkey (PRF) or the recovery code; a wrong code or passkey says so and stays.
 */
export function WalletRestoreStep({ transitions, step, ui }: StepProps<"wallet_restore">) {
  const { locale, signer } = useLatchkeyContext();
  const texts = custodyTexts(locale);
  const t = transitions.custody;
  const [code, setCode] = useState("");
  const [used, setUsed] = useState<"code" | "passkey">("code");
  const [malformed, setMalformed] = useState(false);
  const recovery = signer.getState().recovery ?? [];
  const busy = step.status === "verifying";
  const error = malformed
    ? texts.errorMalformedCode
    : step.error
      ? custodyErrorText(texts, step.error, used)
      : recovery.length === 0
        ? texts.errorNoRecovery
        : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isRecoveryCode(code)) {
      setMalformed(true);
      return;
    }
    setMalformed(false);
    setUsed("code");
    void t.restoreWithCode(code);
  };

  return (
    <div className="lk-center" data-testid="lk-wallet-restore">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse={busy} />
      <h2 className="lk-title">{texts.restoreTitle}</h2>
      <p className="lk-text">{texts.restoreBody}</p>
      {error && (
        <p className="lk-inline-error" role="alert">
          {error}
        </p>
      )}
      <div className="lk-actions">
        {recovery.includes("passkey") && (
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={busy}
            onClick={() => {
              setMalformed(false);
              setUsed("passkey");
              void t.restoreWithPasskey();
            }}
          >
            {busy && used === "passkey" && <span className="lk-spinner" aria-hidden />}
            {texts.restoreWithPasskey}
          </button>
        )}
        {recovery.includes("passkey") && recovery.includes("code") && (
          <p className="lk-subtle">{texts.restoreOr}</p>
        )}
        {recovery.includes("code") && (
          <form className="lk-stack" onSubmit={submit}>
            <label className="lk-field">
              <span className="lk-sr">{texts.restoreCodeLabel}</span>
              <input
                className="lk-input"
                name="recoveryCode"
                autoComplete="off"
                spellCheck={false}
                placeholder={texts.restoreCodeLabel}
                aria-invalid={malformed || (step.error !== undefined && used === "code")}
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            </label>
            <button
              type="submit"
              className={recovery.includes("passkey") ? "lk-btn lk-btn-secondary" : "lk-btn lk-btn-primary"}
              disabled={busy || code.trim() === ""}
            >
              {busy && used === "code" && <span className="lk-spinner" aria-hidden />}
              {texts.restoreWithCode}
            </button>
          </form>
        )}
        <button type="button" className="lk-btn lk-btn-ghost" disabled={busy} onClick={() => t.skipRestore()}>
          {texts.notNow}
        </button>
      </div>
    </div>
  );
}
