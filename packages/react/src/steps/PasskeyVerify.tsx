import { ConnectionError } from "../components/ConnectionError";
import { PasskeyIllustration } from "../components/PasskeyIllustration";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * passkey_verify (spec §2): waiting for the browser's passkey prompt; Cancel returns to initial (and
 * aborts the prompt). A failure shows the passkey error view.
 */
export function PasskeyVerifyStep({ transitions, step, ui }: StepProps<"passkey_verify">) {
  const texts = useTexts();
  if (step.error)
    return (
      <ConnectionError
        title={texts.connectionFailed}
        body={texts.passkeyFailedBody}
        onRetry={() => void transitions.passkey.retry()}
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
  return (
    <div className="lk-center" aria-busy="true">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse />
      <h2 className="lk-title">{texts.continueWithPasskey}</h2>
      <p className="lk-text">{texts.passkeyVerifyBody}</p>
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
