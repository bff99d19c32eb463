import { useRemoveEmail, useSetEmail } from "@latchkey/react";
import { type FormEvent, useState } from "react";

/**
 * The email sign-in: change it (a code to the new address proves it, then it replaces the old one, which
 * is told) or turn it off (never the last way in).
 */
export function EmailMethod({
  email,
  busy,
  run,
}: {
  email: string | null;
  busy: string;
  run: (what: string, action: () => Promise<unknown>) => Promise<void>;
}) {
  const { sendVerificationCodeAsync, setEmailAsync } = useSetEmail();
  const { removeEmailAsync } = useRemoveEmail();
  const [editing, setEditing] = useState(false);
  const [next, setNext] = useState("");
  const [otpId, setOtpId] = useState("");
  const [code, setCode] = useState("");
  const close = () => {
    setEditing(false);
    setNext("");
    setOtpId("");
    setCode("");
  };
  const sendCode = (event: FormEvent) => {
    event.preventDefault();
    void run("email-code", async () => {
      setOtpId((await sendVerificationCodeAsync({ contact: next })).otpId);
    });
  };
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    void run("email-set", async () => {
      await setEmailAsync({ email: next, otpId, verificationCode: code });
      close();
    });
  };
  return (
    <div className="method" data-testid="email">
      <div className="method-head">
        <strong>Email</strong>
        <span className="muted" data-testid="email-current">
          {email ?? "Not set"}
        </span>
      </div>
      {!editing && (
        <div className="email-row">
          <button type="button" className="btn" disabled={busy !== ""} onClick={() => setEditing(true)}>
            {email ? "Change email" : "Add an email"}
          </button>
          {email && (
            <button
              type="button"
              className="linkish"
              disabled={busy !== ""}
              onClick={() => run("email-remove", () => removeEmailAsync())}
            >
              Stop signing in by email
            </button>
          )}
        </div>
      )}
      {editing && !otpId && (
        <form className="email-row" onSubmit={sendCode}>
          <input
            type="email"
            required
            aria-label="New email"
            placeholder="new@example.com"
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
          <button type="submit" className="btn" disabled={busy !== "" || !next}>
            {busy === "email-code" ? "Sending…" : "Send code"}
          </button>
          <button type="button" className="linkish" onClick={close}>
            Cancel
          </button>
        </form>
      )}
      {editing && otpId && (
        <form className="email-row" onSubmit={confirm}>
          <span className="muted">Code sent to {next}</span>
          <input
            inputMode="numeric"
            autoComplete="one-time-code"
            aria-label="Code"
            placeholder="123456"
            value={code}
            onChange={(e) => setCode(e.target.value.trim())}
          />
          <button type="submit" className="btn" disabled={busy !== "" || code.length !== 6}>
            {busy === "email-set" ? "Confirming…" : "Confirm"}
          </button>
          <button type="button" className="linkish" onClick={close}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}
