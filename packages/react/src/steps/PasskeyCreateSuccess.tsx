import { PASSKEY_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import { CheckBadge } from "../components/PasskeyIllustration";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";

/** passkey_create_success (spec §2): 'Passkey added!'; the flow completes after 5 s. */
export function PasskeyCreateSuccessStep() {
  const texts = useTexts();
  return (
    <div className="lk-center" aria-live="polite">
      <MethodStyles />
      <CheckBadge />
      <h2 className="lk-title">{texts.passkeyAdded}</h2>
      <p className="lk-text">{texts.passkeyAddedBody}</p>
      <div className="lk-progress" aria-hidden>
        <div style={{ animationDuration: `${PASSKEY_SUCCESS_DELAY_MS}ms` }} />
      </div>
    </div>
  );
}
