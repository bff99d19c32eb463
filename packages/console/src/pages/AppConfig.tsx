import { useLoad, useSession } from "../components/session";
import { ErrorBanner, formatTime, Json, PageHead } from "../components/ui";

const list = (items: readonly string[]) => (items.length ? items.join(", ") : "—");

/** The app's configuration as the service holds it, read-only (it is changed in the config file). */
export function AppConfig() {
  const { call } = useSession();
  const loaded = useLoad(() => call("get_app", {}), "app");
  const app = loaded.data?.app;
  return (
    <>
      <PageHead title="App and policies">
        Read-only: the app is configured in the service's config file (or <code>latchkey app create</code>).
      </PageHead>
      <ErrorBanner error={loaded.error} />
      {app ? (
        <div className="c-stack">
          <section className="c-card">
            <h2>
              {app.name} ({app.id})
            </h2>
            <dl className="c-kv">
              <dt>Organization id</dt>
              <dd className="mono">{app.organizationId}</dd>
              <dt>Email sign-in</dt>
              <dd>{app.emailMode}</dd>
              <dt>Mail language</dt>
              <dd>{app.locale}</dd>
              <dt>Custody</dt>
              <dd>
                {app.custody === "split"
                  ? "split: every signature needs the user's share"
                  : "service: the service signs alone"}
              </dd>
              <dt>Allowed origins</dt>
              <dd>{list(app.allowedOrigins)}</dd>
              <dt>Magic-link redirects</dt>
              <dd>{list(app.magicLinkRedirectUrls)}</dd>
              <dt>Passkeys</dt>
              <dd>
                relying party {app.webauthn.rpId}; origins {list(app.webauthn.origins)}
              </dd>
              <dt>Backend JWT</dt>
              <dd>{app.jwt ? `${app.jwt.issuer} (${app.jwt.jwksUrl})` : "—"}</dd>
              <dt>API keys</dt>
              <dd>
                {app.apiKeys
                  .map((k) => `${k.prefix}… (${formatTime(k.createdAt)}${k.revokedAt ? ", revoked" : ""})`)
                  .join(", ") || "—"}
              </dd>
            </dl>
          </section>
          <section className="c-card">
            <h2>Social sign-in providers</h2>
            {app.oauthProviders.length ? (
              <table className="c-table">
                <thead>
                  <tr>
                    <th>Provider</th>
                    <th>Issuer</th>
                    <th>Client id</th>
                    <th>Scopes</th>
                    <th>Secret</th>
                  </tr>
                </thead>
                <tbody>
                  {app.oauthProviders.map((p) => (
                    <tr key={p.id}>
                      <td>{p.displayName}</td>
                      <td className="mono">{p.issuer}</td>
                      <td className="mono">{p.clientId}</td>
                      <td>{p.scopes.join(" ")}</td>
                      <td>{p.hasClientSecret ? "sealed" : "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="c-empty">None.</p>
            )}
          </section>
          <section className="c-card" data-testid="signing-policy">
            <h2>Signing policy</h2>
            {app.signingPolicy ? (
              <Json value={app.signingPolicy} />
            ) : (
              <p className="c-empty">None: every signature is made.</p>
            )}
          </section>
          <section className="c-card" data-testid="sponsorship-policies">
            <h2>Sponsorship policies</h2>
            {app.sponsorship.policies.length + app.sponsorship.solanaPolicies.length ? (
              <Json value={app.sponsorship} />
            ) : (
              <p className="c-empty">The app sponsors nothing.</p>
            )}
          </section>
          <section className="c-card">
            <h2>Webhook endpoints</h2>
            {app.webhooks.length ? (
              <table className="c-table">
                <tbody>
                  {app.webhooks.map((w) => (
                    <tr key={w.endpointId}>
                      <td className="mono">{w.url}</td>
                      <td>{w.events.join(", ")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="c-empty">None.</p>
            )}
          </section>
          <p className="c-muted">
            Signed in as {loaded.data?.admin.name} (
            {loaded.data?.admin.via === "console" ? "console session" : "admin key"}).
          </p>
        </div>
      ) : null}
    </>
  );
}
