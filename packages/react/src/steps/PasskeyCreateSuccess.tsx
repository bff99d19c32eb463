import { PASSKEY_SUCCESS_DELAY_MS } from "@latchkey/protocol/constants";
import { CheckBadge } from "../components/PasskeyIllustration";
import { strings } from "../strings";
import { MethodStyles } from "../styles/Styles";

/** passkey_create_success (spec §2): 'Passkey added!'; the flow completes after 5 s. */
export function PasskeyCreateSuccessStep() {
  return (
    <div className="lk-center" aria-live="polite">
      <MethodStyles />
      <CheckBadge />
      <h2 className="lk-title">{strings.passkeyAdded}</h2>
      <p className="lk-text">{strings.passkeyAddedBody}</p>
      <div className="lk-progress" aria-hidden>
        <div style={{ animationDuration: `${PASSKEY_SUCCESS_DELAY_MS}ms` }} />
      </div>
    </div>
  );
}
