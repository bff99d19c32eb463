import { useState } from "react";

/**
 * A button for an action that cannot be undone by accident: the first press asks, the second (on the
 * "Confirm" button that replaces it) acts. `onConfirm`'s failure is the caller's to show.
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  tone?: "danger" | "primary" | "secondary";
  small?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const size = props.small ? " c-btn-small" : "";
  const tone = `c-btn-${props.tone ?? "danger"}`;
  if (!asking)
    return (
      <button
        type="button"
        className={`c-btn ${tone}${size}`}
        disabled={props.disabled}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  return (
    <span className="c-row">
      <button
        type="button"
        className={`c-btn ${tone}${size}`}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? "Working…" : props.confirmLabel}
      </button>
      <button
        type="button"
        className={`c-btn c-btn-secondary${size}`}
        disabled={busy}
        onClick={() => setAsking(false)}
      >
        Cancel
      </button>
    </span>
  );
}
