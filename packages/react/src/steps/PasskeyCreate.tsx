import { ConnectionError } from "../components/ConnectionError";
import { BoltIcon, LockIcon, PasskeyIllustration } from "../components/PasskeyIllustration";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/**
 * passkey_create (spec §2, §4): offers a passkey to a signed-in user, with two benefits; Continue adds
 * it, Skip completes. A failure shows 'Failed to add passkey' with Try again and Skip; the user stays
 * signed in.
 */
export function PasskeyCreateStep({ transitions, step, ui }: StepProps<"passkey_create">) {
  const texts = useTexts();
  if (step.error)
    return (
      <ConnectionError
        title={texts.failedToAddPasskey}
        body={texts.passkeyFailedBody}
        onRetry={() => void transitions.passkeyOnSignup.add()}
        onSkip={() => transitions.passkeyOnSignup.skip()}
      />
    );
  const busy = step.status === "verifying";
  return (
    <div className="lk-center">
      <MethodStyles />
      <PasskeyIllustration style={ui.illustrationStyle} pulse={busy} />
      <h2 className="lk-title">{texts.addAPasskey}</h2>
      <p className="lk-text">{texts.addPasskeyBody}</p>
      <ul className="lk-benefits">
        <li>
          <BoltIcon />
          <div>
            <strong>{texts.simplerLogin}</strong>
            <span>{texts.simplerLoginBody}</span>
          </div>
        </li>
        <li>
          <LockIcon />
          <div>
            <strong>{texts.enhancedSecurity}</strong>
            <span>{texts.enhancedSecurityBody}</span>
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
          {texts.continue}
        </button>
        <button
          type="button"
          className="lk-btn lk-btn-ghost"
          onClick={() => transitions.passkeyOnSignup.skip()}
        >
          {texts.skip}
        </button>
      </div>
    </div>
  );
}
