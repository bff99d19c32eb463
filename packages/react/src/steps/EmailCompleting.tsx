import { useTexts } from "../texts/useTexts";

/** email_completing: a magic link is being completed; moves on once the signer is connected. */
export function EmailCompletingStep() {
  const texts = useTexts();
  return (
    <div className="lk-center" aria-busy="true">
      <div className="lk-spinner" />
      <p className="lk-text">{texts.completing}</p>
    </div>
  );
}
