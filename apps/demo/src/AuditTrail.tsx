import { useAuditEvents } from "@latchkey/react";

// What each event of the service's audit log means to the person it is about.
const LABELS: Record<string, string> = {
  "user.signup": "Account created",
  "user.signin": "Signed in",
  "user.email_changed": "Email changed",
  "user.email_removed": "Email sign-in turned off",
  "passkey.added": "Passkey added",
  "passkey.removed": "Passkey removed",
  "oauth.linked": "Social sign-in linked",
  "oauth.unlinked": "Social sign-in removed",
  "mfa.requested": "Authenticator app set up",
  "mfa.enabled": "Authenticator app turned on",
  "mfa.removed": "Authenticator app turned off",
  "wallet.exported": "Recovery phrase exported",
  "wallet.imported": "Wallet imported",
  "otp.burned": "Code locked after wrong tries",
  "siwe.signin": "Signed in with a wallet",
  "signing.rejected": "Signature refused by policy",
  "signing.held": "Signature waiting for approval",
  "signing.approved": "Signature approved",
  "grant.created": "Permission granted to the app",
  "grant.revoked": "Permission revoked",
  "grant.used": "The app signed within a permission",
};

/** How the event happened, when the service noted it (a method, a provider, an address). */
function detail(details: Record<string, unknown> | undefined): string {
  if (!details) return "";
  if (typeof details.method === "string") return details.method;
  if (Array.isArray(details.providers)) return details.providers.join(", ");
  if (typeof details.to === "string") return details.to;
  return "";
}

/** The signed-in person's own security events, newest first (the service's audit log). */
export function AuditTrail() {
  const { events, error } = useAuditEvents({ limit: 15 });
  return (
    <section className="card audit" data-testid="audit-trail">
      <h3>Security activity</h3>
      <p className="muted">What happened to this account recently, newest first.</p>
      {!events && !error && <p className="muted">Loading…</p>}
      {error && <div className="verdict bad">{error.message}</div>}
      {events && events.length === 0 && <p className="muted">Nothing yet.</p>}
      {events && events.length > 0 && (
        <ul>
          {events.map((e) => {
            const how = detail(e.details);
            return (
              <li key={e.eventId} data-event={e.event}>
                <span>
                  {LABELS[e.event] ?? e.event}
                  {how && <small className="muted"> · {how}</small>}
                </span>
                <small className="muted">
                  {new Date(Number(e.createdAt.seconds) * 1000).toLocaleString()}
                  {e.ip ? ` · ${e.ip}` : ""}
                </small>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
