import { strings } from "../strings";

/** email_completing: a magic link is being completed; moves on once the signer is connected. */
export function EmailCompletingStep() {
  return (
    <div className="lk-center" aria-busy="true">
      <div className="lk-spinner" />
      <p className="lk-text">{strings.completing}</p>
    </div>
  );
}
