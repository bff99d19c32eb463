import { ConnectionError } from "../components/ConnectionError";
import { BoltIcon, LockIcon, PasskeyIllustration } from "../components/PasskeyIllustration";
import { strings } from "../strings";
import { MethodStyles } from "../styles/Styles";
import type { StepProps } from "./types";

/**
 * passkey_create (spec §2, §4): offers a passkey to a signed-in user, with two benefits; Continue adds
 * it, Skip completes. A failure shows 'Failed to add passkey' with Try again and Skip; the user stays
 * signed in.
 */
export function PasskeyCreateStep({ transitions, step, ui }: StepProps<"passkey_create">) {
  if (step.error)
    return (
      <ConnectionError
        title={strings.failedToAddPasskey}
        body={strings.passkeyFailedBody}
        onRetry={() => void transitions.passkeyOnSignup.add()}
        onSkip={() => transitions.passkeyOnSignup.skip()}
      />
    );
  const busy = step.status === "verifying";
  return (
    <div className="lk-center">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse={busy} />
      <h2 className="lk-title">{strings.addAPasskey}</h2>
      <p className="lk-text">{strings.addPasskeyBody}</p>
      <ul className="lk-benefits">
        <li>
          <BoltIcon />
          <div>
            <strong>{strings.simplerLogin}</strong>
            <span>{strings.simplerLoginBody}</span>
          </div>
        </li>
        <li>
          <LockIcon />
          <div>
            <strong>{strings.enhancedSecurity}</strong>
            <span>{strings.enhancedSecurityBody}</span>
          </div>
        </li>
      </ul>
      <div className="lk-actions">
        <button
          type="button"
          className="lk-btn lk-btn-primary"
          disabled={busy}
          onClick={() => void transitions.passkeyOnSignup.add()}
        >
          {busy && <span className="lk-spinner" aria-hidden />}
          {strings.continue}
        </button>
        <button
          type="button"
          className="lk-btn lk-btn-ghost"
          onClick={() => transitions.passkeyOnSignup.skip()}
        >
          {strings.skip}
        </button>
      </div>
    </div>
  );
}
