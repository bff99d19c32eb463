import {
  useAddOauthProvider,
  useAddPasskey,
  useAuthMethods,
  useMfa,
  useRemoveOauthProvider,
  useRemovePasskey,
  useSigner,
} from "@latchkey/react";
import { type FormEvent, useEffect, useState } from "react";
import { EmailMethod } from "./EmailMethod";
import { ExportWallet } from "./ExportWallet";
import { errorMessage } from "./errorMessage";
import { ImportWallet } from "./ImportWallet";
import { DEMO_PROVIDERS, useOauthMode } from "./oauthMode";
import "./account.css";

const PROVIDER_NAMES: Record<string, string> = { google: "Google", auth0: "Auth0" };
// WebAuthn relying parties are host names: on http://127.0.0.1 the browser refuses every passkey.
const IP_HOST = /^(\d{1,3}\.){3}\d{1,3}$|^\[/;

/** The authenticator-app setup: QR code (drawn in the browser) and secret, confirmed with a code. */
function TotpSetup({
  factor,
  onDone,
  onCancel,
}: {
  factor: { multiFactorId: string; multiFactorTotpUrl: string };
  onDone: () => void;
  onCancel: () => void;
}) {
  const [qr, setQr] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const { verifyMfaAsync } = useMfa();
  useEffect(() => {
    let live = true;
    // The QR code library is loaded only here, not with the page.
    import("qrcode")
      .then(({ toDataURL }) => toDataURL(factor.multiFactorTotpUrl, { margin: 1, width: 176 }))
      .then((image) => live && setQr(image))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [factor]);
  const secret = new URL(factor.multiFactorTotpUrl).searchParams.get("secret") ?? "";
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await verifyMfaAsync({ multiFactorId: factor.multiFactorId, multiFactorCode: code });
      onDone();
    } catch (err) {
      setError(errorMessage(err));
      setCode("");
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="totp-setup" onSubmit={confirm}>
      {qr ? (
        <img
          src={qr}
          width={176}
          height={176}
          alt="QR code for your authenticator app"
          data-testid="totp-qr"
        />
      ) : (
        <div className="qr-placeholder" aria-busy="true" />
      )}
      <div className="totp-steps">
        <p>Scan the code with your authenticator app, or enter this secret:</p>
        <code data-testid="totp-secret">{secret}</code>
        <label>
          <span className="muted">Then type the 6-digit code it shows</span>
          <input
            aria-label="Authenticator code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            pattern="\d{6}"
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ""))}
          />
        </label>
        <div className="actions">
          <button type="submit" className="btn primary" disabled={code.length !== 6 || busy}>
            {busy ? "Checking…" : "Turn on"}
          </button>
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        </div>
        {error && <div className="verdict bad">{error}</div>}
      </div>
    </form>
  );
}

/**
 * The signed-in user's ways to sign in (list-auth-methods): passkeys (add, remove), social providers
 * (link by pop-up, unlink) and the authenticator app (turn on with a QR code, turn off).
 */
export function Account() {
  const signer = useSigner();
  // Each change below refetches the list itself (the hooks invalidate it).
  const { authMethods: methods, error: loadError, refetch } = useAuthMethods();
  const { addPasskeyAsync } = useAddPasskey();
  const { removePasskeyAsync } = useRemovePasskey();
  const { addOauthProviderAsync } = useAddOauthProvider();
  const { removeOauthProviderAsync } = useRemoveOauthProvider();
  const { factors: mfaFactors, addMfaAsync, removeMfaAsync } = useMfa();
  const [busy, setBusy] = useState("");
  const [error, setError] = useState("");
  // A TOTP factor being set up (added, not confirmed yet).
  const [newFactor, setNewFactor] = useState<{ multiFactorId: string; multiFactorTotpUrl: string } | null>(
    null,
  );

  // A provider linked by redirect is added when the page comes back; a failure is the signer's error.
  useEffect(() => {
    const offs = [
      signer.on("oauthProviderAdded", () => void refetch()),
      signer.on("errorChanged", (e) => e && setError(e.message)),
    ];
    const initial = signer.getState().error;
    if (initial) setError(initial.message);
    return () => {
      for (const off of offs) off();
    };
  }, [signer, refetch]);
  const oauthMode = useOauthMode();

  const run = async (what: string, action: () => Promise<unknown>) => {
    setBusy(what);
    setError("");
    try {
      await action();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy("");
    }
  };

  const factors = mfaFactors ?? methods?.mfaFactors ?? [];
  const linked = new Set(methods?.oauthProviders.map((p) => p.providerName));
  return (
    <section className="card methods" data-testid="account">
      <h3>Sign-in methods</h3>
      <p className="muted">Ways to get back into this wallet. Keep at least one.</p>
      {!methods && !error && !loadError && <p className="muted">Loading…</p>}
      {methods && (
        <>
          <EmailMethod email={methods.email ?? null} busy={busy} run={run} />

          <div className="method" data-testid="passkeys">
            <div className="method-head">
              <strong>Passkeys</strong>
              <button
                type="button"
                className="btn"
                disabled={busy !== ""}
                onClick={() => run("add-passkey", () => addPasskeyAsync())}
              >
                {busy === "add-passkey" ? "Waiting for your device…" : "Add a passkey"}
              </button>
            </div>
            {IP_HOST.test(location.hostname) && (
              <p className="muted" data-testid="passkey-host-hint">
                Passkeys need a host name, not an IP address: open this page on{" "}
                <a href={`${location.protocol}//localhost:${location.port}${location.pathname}`}>localhost</a>
                .
              </p>
            )}
            {methods.passkeys.length === 0 && <p className="muted">No passkey yet.</p>}
            <ul>
              {methods.passkeys.map((p) => (
                <li key={p.authenticatorId}>
                  <span>
                    {p.name}
                    <small className="muted"> · added {new Date(p.createdAt).toLocaleDateString()}</small>
                  </span>
                  <button
                    type="button"
                    className="linkish"
                    disabled={busy !== ""}
                    onClick={() =>
                      run(`rm-${p.authenticatorId}`, () =>
                        removePasskeyAsync({ authenticatorId: p.authenticatorId }),
                      )
                    }
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          </div>

          <div className="method" data-testid="providers">
            <div className="method-head">
              <strong>Social sign-in</strong>
              <span className="provider-buttons">
                {DEMO_PROVIDERS.filter((p) => !linked.has(p.authProviderId)).map((p) => (
                  <button
                    key={p.authProviderId}
                    type="button"
                    className="btn"
                    disabled={busy !== ""}
                    onClick={() => {
                      if (oauthMode === "redirect") {
                        // The page leaves for the provider; the link is made when it comes back.
                        void run(`link-${p.authProviderId}`, () =>
                          addOauthProviderAsync({ authProviderId: p.authProviderId, mode: "redirect" }),
                        );
                        return;
                      }
                      // Inside the click: the pop-up may only open here.
                      signer.preparePopupOauth();
                      void run(`link-${p.authProviderId}`, () =>
                        addOauthProviderAsync({ authProviderId: p.authProviderId, mode: "popup" }),
                      );
                    }}
                  >
                    Link {PROVIDER_NAMES[p.authProviderId]}
                  </button>
                ))}
              </span>
            </div>
            {methods.oauthProviders.length === 0 && <p className="muted">No provider linked.</p>}
            <ul>
              {methods.oauthProviders.map((p) => (
                <li key={p.providerId}>
                  <span>
                    {PROVIDER_NAMES[p.providerName ?? ""] ?? p.providerName ?? "Provider"}
                    <small className="muted"> · {p.userDisplayName ?? p.issuer}</small>
                  </span>
                  <button
                    type="button"
                    className="linkish"
                    disabled={busy !== ""}
                    onClick={() =>
                      run(`unlink-${p.providerId}`, () =>
                        removeOauthProviderAsync({ providerId: p.providerId }),
                      )
                    }
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          </div>

          <div className="method" data-testid="totp">
            <div className="method-head">
              <strong>Authenticator app</strong>
              {factors.length > 0 ? (
                <button
                  type="button"
                  className="btn"
                  disabled={busy !== ""}
                  onClick={() =>
                    run("totp-off", () =>
                      removeMfaAsync({ multiFactorIds: factors.map((f) => f.multiFactorId) }),
                    )
                  }
                >
                  Turn off
                </button>
              ) : (
                !newFactor && (
                  <button
                    type="button"
                    className="btn"
                    disabled={busy !== ""}
                    onClick={() => run("totp-on", async () => setNewFactor(await addMfaAsync()))}
                  >
                    Turn on
                  </button>
                )
              )}
            </div>
            <p className="muted">
              {factors.length > 0
                ? "On: sign-ins by email also ask for a code from your app."
                : "Off: add a second step to email sign-ins."}
            </p>
            {newFactor && (
              <TotpSetup
                factor={newFactor}
                // An unconfirmed factor does not count; the next Turn on replaces it.
                onCancel={() => setNewFactor(null)}
                onDone={() => setNewFactor(null)}
              />
            )}
          </div>
        </>
      )}
      {methods && <ExportWallet />}
      {methods && <ImportWallet />}
      {(error || loadError) && (
        <div className="verdict bad" role="alert">
          {error || errorMessage(loadError)}
        </div>
      )}
    </section>
  );
}
