import type { AuthTransitions } from "../flow/transitions";
import { useTexts } from "../texts/useTexts";
import type { PasskeySection } from "../types";
import { PasskeyIcon } from "./icons";

/**
 * The passkey section: sign in with a passkey ('I have a passkey' next to an email field, 'Continue
 * with passkey' alone), and a link to sign up with a new one.
 */
export function PasskeyButtons({
  transitions,
  section,
  label,
}: {
  transitions: AuthTransitions;
  section: PasskeySection;
  /** True when the modal also has an email field. */
  label: boolean;
}) {
  const texts = useTexts();
  return (
    <>
      <button
        type="button"
        className="lk-btn lk-btn-secondary"
        onClick={() => void transitions.passkey.start()}
      >
        <PasskeyIcon />
        {label ? texts.iHaveAPasskey : texts.continueWithPasskey}
      </button>
      {!section.hideCreate && (
        <div className="lk-text" style={{ fontSize: 13 }}>
          {texts.newHere}{" "}
          <button
            type="button"
            className="lk-link"
            onClick={() => void transitions.passkey.start({ createNew: true })}
          >
            {texts.createPasskey}
          </button>
        </div>
      )}
    </>
  );
}
