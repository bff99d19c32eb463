import { useState } from "react";
import { ConfirmButton } from "../components/ConfirmButton";
import { useLoad, useSession } from "../components/session";
import { Badge, ErrorBanner, formatTime, Notice, PageHead, StatusBadge, shortType } from "../components/ui";
import { Link } from "../router";

/** One user: sign-in methods, wallets, live sessions, second factors, recent activity and security events. */
export function UserDetail(props: { userId: string }) {
  const { call } = useSession();
  const user = useLoad(() => call("get_user", { userId: props.userId }), props.userId);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<unknown>();
  const act = async (run: () => Promise<string>) => {
    setError(undefined);
    setDone(undefined);
    try {
      setDone(await run());
      user.reload();
    } catch (e) {
      setError(e);
    }
  };
  const d = user.data;
  const disabled = d?.user.disabledAt != null;
  return (
    <>
      <PageHead
        title={d?.user.email ?? (d ? "(no email)" : "User")}
        actions={
          d ? (
            <>
              <ConfirmButton
                label="Revoke all sessions"
                confirmLabel={`Revoke ${d.sessions.length} session${d.sessions.length === 1 ? "" : "s"}`}
                disabled={d.sessions.length === 0}
                onConfirm={() =>
                  act(async () => {
                    const r = await call("revoke_sessions", { userId: props.userId });
                    return `Revoked ${r.revoked} session${r.revoked === 1 ? "" : "s"}: the next signature with any of them fails.`;
                  })
                }
              />
              {disabled ? (
                <ConfirmButton
                  label="Enable user"
                  confirmLabel="Enable"
                  tone="primary"
                  onConfirm={() =>
                    act(async () => {
                      await call("enable_user", { userId: props.userId });
                      return "Enabled: the user can sign in and sign again.";
                    })
                  }
                />
              ) : (
                <ConfirmButton
                  label="Disable user"
                  confirmLabel="Disable"
                  onConfirm={() =>
                    act(async () => {
                      await call("disable_user", { userId: props.userId });
                      return "Disabled: the user can neither sign in nor sign.";
                    })
                  }
                />
              )}
            </>
          ) : null
        }
      >
        <Link to="/users">Users</Link> · <span className="mono">{props.userId}</span>{" "}
        {disabled ? <Badge>disabled</Badge> : null}
      </PageHead>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorBanner error={error ?? user.error} />
      {d ? (
        <div className="c-grid">
          <section className="c-card">
            <h2>Sign-in methods</h2>
            <dl className="c-kv">
              <dt>Email</dt>
              <dd>{d.signInMethods.email ?? "—"}</dd>
              <dt>Passkeys</dt>
              <dd>
                {d.signInMethods.passkeys.map((p) => `${p.name} (${formatTime(p.createdAt)})`).join(", ") ||
                  "—"}
              </dd>
              <dt>Social</dt>
              <dd>
                {d.signInMethods.oauth
                  .map((o) => `${o.provider}${o.email ? ` (${o.email})` : ""}`)
                  .join(", ") || "—"}
              </dd>
              <dt>Second factors</dt>
              <dd>
                {d.secondFactors.map((f) => `${f.type}${f.verified ? "" : " (not verified)"}`).join(", ") ||
                  "—"}
              </dd>
              <dt>Signed up</dt>
              <dd>{formatTime(d.user.createdAt)}</dd>
            </dl>
          </section>
          <section className="c-card">
            <h2>Wallets</h2>
            {d.wallets.map((w) => (
              <div key={w.walletId} className="c-stack">
                <span className="c-muted">{w.name}</span>
                {w.accounts.map((a) => (
                  <div key={a.address}>
                    <span className="mono" data-testid="wallet-address">
                      {a.address}
                    </span>{" "}
                    <span className="c-muted">{a.addressFormat.replace("ADDRESS_FORMAT_", "")}</span>
                  </div>
                ))}
              </div>
            ))}
          </section>
          <section className="c-card" data-testid="user-sessions">
            <h2>Live sessions ({d.sessions.length})</h2>
            <table className="c-table">
              <thead>
                <tr>
                  <th>Session</th>
                  <th>Signed in by</th>
                  <th>Since</th>
                  <th>Expires</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {d.sessions.map((s) => (
                  <tr key={s.sessionId}>
                    <td className="mono">{s.sessionId.slice(0, 8)}</td>
                    <td>{s.signedInBy ?? s.kind}</td>
                    <td className="c-nowrap">{formatTime(s.createdAt)}</td>
                    <td className="c-nowrap">{formatTime(s.expiresAt)}</td>
                    <td>
                      <ConfirmButton
                        small
                        label="Revoke"
                        confirmLabel="Revoke"
                        onConfirm={() =>
                          act(async () => {
                            await call("revoke_sessions", { userId: props.userId, sessionId: s.sessionId });
                            return "Revoked one session.";
                          })
                        }
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {d.sessions.length === 0 ? <p className="c-empty">No live session.</p> : null}
          </section>
          <section className="c-card">
            <h2>Recent activities</h2>
            <table className="c-table">
              <tbody>
                {d.recentActivities.map((a) => (
                  <tr key={a.activityId}>
                    <td>{shortType(a.type)}</td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
                    <td className="c-nowrap">{formatTime(a.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Link to={`/activities?userId=${encodeURIComponent(props.userId)}`}>
              All of this user's activities
            </Link>
          </section>
          <section className="c-card">
            <h2>Security events</h2>
            <table className="c-table">
              <tbody>
                {d.securityEvents.map((e) => (
                  <tr key={e.eventId}>
                    <td>{e.event}</td>
                    <td className="c-muted">{e.ip ?? ""}</td>
                    <td className="c-nowrap">{formatTime(e.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Link to={`/security?userId=${encodeURIComponent(props.userId)}`}>This user's security log</Link>
          </section>
        </div>
      ) : null}
    </>
  );
}
