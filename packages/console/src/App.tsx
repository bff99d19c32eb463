import { useCallback, useEffect, useState } from "react";
import { adminCall } from "./api/client";
import { type AdminSession, forgetSession, loadSession, saveSession } from "./api/sessionKey";
import { Shell } from "./components/Shell";
import { SessionProvider } from "./components/session";
import { Enrol } from "./pages/Enrol";
import { SignIn } from "./pages/SignIn";
import { navigate, pathOnly, usePath } from "./router";

/**
 * The console: an enrolment link's page, the sign-in, or (signed in) the pages of the admin's app. The
 * session (its non-extractable key) is kept in IndexedDB until it expires or the admin signs out.
 */
export function App() {
  const path = usePath();
  const [session, setSession] = useState<AdminSession | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    loadSession().then(setSession);
  }, []);

  const signedIn = useCallback((s: AdminSession) => {
    setNotice(undefined);
    setSession(s);
    void saveSession(s);
  }, []);
  const ended = useCallback(() => {
    setNotice("Your session has ended. Sign in again.");
    setSession(null);
    void forgetSession();
  }, []);
  const signOut = useCallback(async () => {
    if (session) await adminCall(session, "sign_out", {}).catch(() => undefined);
    await forgetSession();
    setNotice("Signed out.");
    setSession(null);
  }, [session]);

  if (pathOnly(path) === "/enrol")
    return (
      <Enrol
        onEnrolled={() => {
          setNotice("Your passkey is enrolled. Sign in with it.");
          setSession(null);
          void forgetSession();
          navigate("/");
        }}
      />
    );
  if (session === undefined) return null;
  if (session === null) return <SignIn onSignedIn={signedIn} notice={notice} />;
  return (
    <SessionProvider session={session} onEnded={ended} signOut={signOut}>
      <Shell path={path} />
    </SessionProvider>
  );
}
