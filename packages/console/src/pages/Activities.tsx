import { dayStart, type FilterField, Filters, readFilters } from "../components/Filters";
import { Pager } from "../components/Pager";
import { usePaged, useSession } from "../components/session";
import { ErrorBanner, formatTime, PageHead, StatusBadge, shortType } from "../components/ui";
import { Link } from "../router";

const STATUSES = ["COMPLETED", "CONSENSUS_NEEDED", "PENDING", "FAILED", "REJECTED", "CREATED"].map(
  (s) => [`ACTIVITY_STATUS_${s}`, s] as const,
);
const TYPES = [
  "SIGN_RAW_PAYLOAD_V2",
  "SIGN_RAW_PAYLOADS",
  "SIGN_TRANSACTION_V2",
  "CREATE_READ_WRITE_SESSION_V2",
  "CREATE_API_KEYS_V2",
  "DELETE_API_KEYS",
  "CREATE_AUTHENTICATORS_V2",
  "DELETE_AUTHENTICATORS",
  "CREATE_OAUTH_PROVIDERS",
  "DELETE_OAUTH_PROVIDERS",
  "UPDATE_USER_EMAIL",
  "EXPORT_WALLET",
].map((t) => [`ACTIVITY_TYPE_${t}`, t] as const);

const FIELDS: FilterField[] = [
  { name: "status", label: "Status", options: STATUSES },
  { name: "type", label: "Type", options: TYPES },
  { name: "userId", label: "User id", placeholder: "any user" },
  { name: "from", label: "From (UTC)", type: "date" },
  { name: "to", label: "To (UTC, inclusive)", type: "date" },
];

/** The app's activities (signatures, sessions, sign-in methods, exports), newest first, filtered. */
export function Activities() {
  const { call } = useSession();
  const f = readFilters();
  const from = dayStart(f.from);
  const to = dayStart(f.to, true);
  const params = {
    ...(f.status ? { status: f.status } : {}),
    ...(f.type ? { activityType: f.type } : {}),
    ...(f.userId ? { userId: f.userId } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
  const paged = usePaged(
    (cursor) => call("list_activities", { ...params, ...(cursor ? { cursor } : {}) }),
    JSON.stringify(params),
  );
  const items = paged.data?.items ?? [];
  return (
    <>
      <PageHead title="Activities">Everything the service did for the app's users, newest first.</PageHead>
      <Filters path="/activities" fields={FIELDS} values={f} />
      <section className="c-card">
        <ErrorBanner error={paged.error} />
        <div className="c-table-wrap">
          <table className="c-table" aria-label="Activities">
            <thead>
              <tr>
                <th>When</th>
                <th>Type</th>
                <th>Status</th>
                <th>User</th>
                <th>Activity</th>
                <th>Failure</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.activityId}>
                  <td className="c-nowrap">{formatTime(a.createdAt)}</td>
                  <td>{shortType(a.type)}</td>
                  <td>
                    <StatusBadge status={a.status} />
                  </td>
                  <td className="mono">
                    <Link to={`/users/${encodeURIComponent(a.userId)}`}>{a.userId.slice(0, 8)}</Link>
                  </td>
                  <td className="mono">{a.activityId}</td>
                  <td>{a.failure ? `${a.failure.code}: ${a.failure.message}` : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!paged.loading && items.length === 0 ? <p className="c-empty">No activity matches.</p> : null}
        <Pager paged={paged} label="Activities" />
      </section>
    </>
  );
}
