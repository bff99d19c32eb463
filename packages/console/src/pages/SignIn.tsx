import { useState } from "react";
import { signInWithPasskey } from "../api/passkey";
import type { AdminSession } from "../api/sessionKey";
import { ErrorBanner, KeyIcon } from "../components/ui";

/** The console's door: an admin signs in with the passkey their enrolment link made. */
export function SignIn(props: { onSignedIn: (session: AdminSession) => void; notice?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const signIn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      props.onSignedIn(await signInWithPasskey());
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <main className="c-center">
      <div className="c-signin">
        <div className="c-key-icon">
          <KeyIcon />
        </div>
        <h1>Latchkey console</h1>
        <p>Sign in with the passkey you enrolled as an admin of your app.</p>
        {props.notice ? <p className="c-muted">{props.notice}</p> : null}
        <ErrorBanner error={error} title="Sign-in failed" />
        <button type="button" className="c-btn c-btn-primary c-btn-large" onClick={signIn} disabled={busy}>
          {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
        </button>
        <p className="c-muted">
          No passkey yet? Ask for an enrolment link: <code>latchkey admin create</code>.
        </p>
      </div>
    </main>
  );
}
