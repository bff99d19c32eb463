import { useTexts } from "../texts/useTexts";

/** Under the code boxes: 'Verifying...', nothing on success (the title says it), or the error. */
export function StatusLine({ status, error }: { status: string; error: string | null }) {
  const texts = useTexts();
  if (status === "verifying")
    return (
      <div className="lk-status" aria-live="polite">
        {texts.verifying}
      </div>
    );
  // On success the title says 'Verified!'; the line stays for the layout.
  if (status === "success") return <div className="lk-status" data-kind="success" aria-live="polite" />;
  return (
    <div className="lk-status" data-kind="error" role={error ? "alert" : undefined}>
      {error}
    </div>
  );
}
