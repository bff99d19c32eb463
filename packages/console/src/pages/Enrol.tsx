import type { AdminConsoleResponse } from "@latchkey/protocol";
import { useEffect, useState } from "react";
import { enrolPasskey, readEnrolment } from "../api/passkey";
import { ErrorBanner, KeyIcon } from "../components/ui";

/**
 * An enrolment link (`/admin/enrol#<token>`, printed by `latchkey admin create`): says whom it is for,
 * then makes and registers that admin's passkey. The token stays in the fragment, so no server log or
 * referrer ever carries it; once read, it leaves the address bar too.
 */
export function Enrol(props: { onEnrolled: () => void }) {
  const [token] = useState(() => window.location.hash.slice(1));
  const [link, setLink] = useState<AdminConsoleResponse<"enrolment">>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    window.history.replaceState(null, "", window.location.pathname);
    if (!token) {
      setError(new Error("This page opens from an enrolment link; its token is missing."));
      return;
    }
    readEnrolment(token).then(setLink, setError);
  }, [token]);

  const enrol = async () => {
    if (!link) return;
    setBusy(true);
    setError(undefined);
    try {
      await enrolPasskey(token, link);
      props.onEnrolled();
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
        <h1>Enrol your passkey</h1>
        {link ? (
          <p>
            As <strong>{link.adminName}</strong>, admin of <strong>{link.appName}</strong> ({link.appId}). The
            passkey is yours alone: it signs you in to this console.
          </p>
        ) : (
          <p>Reading the enrolment link…</p>
        )}
        <ErrorBanner error={error} title="This link cannot enrol a passkey" />
        <button
          type="button"
          className="c-btn c-btn-primary c-btn-large"
          onClick={enrol}
          disabled={!link || busy}
        >
          {busy ? "Waiting for your passkey…" : "Create a passkey"}
        </button>
      </div>
    </main>
  );
}
