import { dayStart, type FilterField, Filters, readFilters } from "../components/Filters";
import { Pager } from "../components/Pager";
import { usePaged, useSession } from "../components/session";
import { ErrorBanner, formatTime, PageHead } from "../components/ui";
import { Link } from "../router";

const FIELDS: FilterField[] = [
  { name: "event", label: "Event", placeholder: "e.g. user.signin" },
  { name: "userId", label: "User id", placeholder: "any user" },
  { name: "from", label: "From (UTC)", type: "date" },
  { name: "to", label: "To (UTC, inclusive)", type: "date" },
];

/** The app's security log: sign-ins and sign-ups, changed sign-in methods, exports, admins' actions. */
export function SecurityLog() {
  const { call } = useSession();
  const f = readFilters();
  const from = dayStart(f.from);
  const to = dayStart(f.to, true);
  const params = {
    ...(f.event ? { event: f.event } : {}),
    ...(f.userId ? { userId: f.userId } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
  const paged = usePaged(
    (cursor) => call("list_audit_events", { ...params, ...(cursor ? { cursor } : {}) }),
    JSON.stringify(params),
  );
  const items = paged.data?.items ?? [];
  return (
    <>
      <PageHead title="Security log">
        Newest first. Admins' actions are here too (admin.*, signing.*).
      </PageHead>
      <Filters path="/security" fields={FIELDS} values={f} />
      <section className="c-card">
        <ErrorBanner error={paged.error} />
        <div className="c-table-wrap">
          <table className="c-table" aria-label="Security events">
            <thead>
              <tr>
                <th>When</th>
                <th>Event</th>
                <th>User</th>
                <th>IP</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.eventId}>
                  <td className="c-nowrap">{formatTime(e.createdAt)}</td>
                  <td>{e.event}</td>
                  <td className="mono">
                    {e.userId ? (
                      <Link to={`/users/${encodeURIComponent(e.userId)}`}>{e.userId.slice(0, 8)}</Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>{e.ip ?? ""}</td>
                  <td className="mono">
                    <EventDetails details={e.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!paged.loading && items.length === 0 ? <p className="c-empty">No event matches.</p> : null}
        <Pager paged={paged} label="Security events" />
      </section>
    </>
  );
}

/**
 * An event's details: a signature's decoded summary (`summary`, issue 46: what the user was shown) as its
 * lines, the rest as JSON.
 */
function EventDetails({ details }: { details: Record<string, unknown> | null | undefined }) {
  if (!details) return null;
  const { summary, ...rest } = details;
  const lines = Array.isArray(summary) ? summary.filter((l): l is string => typeof l === "string") : [];
  return (
    <>
      {lines.length > 0 ? (
        <ul className="c-summary-lines" aria-label="What was signed">
          {lines.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one summary, in order, never reordered
            <li key={i}>{line}</li>
          ))}
        </ul>
      ) : null}
      {Object.keys(rest).length > 0 ? JSON.stringify(rest) : ""}
    </>
  );
}
