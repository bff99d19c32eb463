import { ConnectionError } from "../components/ConnectionError";
import { PasskeyIllustration } from "../components/PasskeyIllustration";
import { strings } from "../strings";
import { MethodStyles } from "../styles/Styles";
import type { StepProps } from "./types";

/**
 * passkey_verify (spec §2): waiting for the browser's passkey prompt; Cancel returns to initial (and
 * aborts the prompt). A failure shows the passkey error view.
 */
export function PasskeyVerifyStep({ transitions, step, ui }: StepProps<"passkey_verify">) {
  if (step.error)
    return (
      <ConnectionError
        title={strings.connectionFailed}
        body={strings.passkeyFailedBody}
        onRetry={() => void transitions.passkey.retry()}
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
  return (
    <div className="lk-center" aria-busy="true">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse />
      <h2 className="lk-title">{strings.continueWithPasskey}</h2>
      <p className="lk-text">{strings.passkeyVerifyBody}</p>
      <div className="lk-actions">
        <button
          type="button"
          className="lk-btn lk-btn-secondary"
          onClick={() => transitions.navigation.toInitial()}
        >
          {strings.cancel}
        </button>
      </div>
    </div>
  );
}
