import { ConnectionError } from "../components/ConnectionError";
import { MethodStyles } from "../components/MethodStyles";
import { PasskeyIllustration } from "../components/PasskeyIllustration";
import { retryPasskey } from "../flow/passkey";
import { INITIAL_STEP } from "../flow/store";
import { strings } from "../strings";
import type { StepProps } from "./types";

/**
 * passkey_verify (spec §2): waiting for the browser's passkey prompt; Cancel returns to initial (and
 * aborts the prompt). A failure shows the passkey error view.
 */
export function PasskeyVerifyStep({ flow, step, ui }: StepProps) {
  if (step.error)
    return (
      <ConnectionError
        flow={flow}
        title={strings.connectionFailed}
        body={strings.passkeyFailedBody}
        onRetry={() => void retryPasskey(flow)}
        onAnotherMethod={() => flow.go(INITIAL_STEP)}
      />
    );
  return (
    <div className="lk-center" aria-busy="true">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse />
      <h2 className="lk-title">{strings.continueWithPasskey}</h2>
      <p className="lk-text">{strings.passkeyVerifyBody}</p>
      <div className="lk-actions">
        <button type="button" className="lk-btn lk-btn-secondary" onClick={() => flow.go(INITIAL_STEP)}>
          {strings.cancel}
        </button>
      </div>
    </div>
  );
}
