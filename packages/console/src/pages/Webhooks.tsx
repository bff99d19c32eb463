import { useState } from "react";
import { type FilterField, Filters, readFilters } from "../components/Filters";
import { Pager } from "../components/Pager";
import { useLoad, usePaged, useSession } from "../components/session";
import { Badge, ErrorBanner, formatTime, Notice, PageHead } from "../components/ui";

const STATUSES = ["pending", "delivered", "failed"] as const;

const FIELDS: FilterField[] = [
  {
    name: "status",
    label: "Status",
    options: STATUSES.map((s) => [s, s] as const),
  },
  { name: "eventType", label: "Event type", placeholder: "e.g. user.created" },
  { name: "eventId", label: "Event id (webhook-id)", placeholder: "msg_…" },
];

/** Every attempt of one delivery: when, how long, what the endpoint answered. */
function Attempts(props: { deliveryId: string }) {
  const { call } = useSession();
  const attempts = useLoad(
    () => call("list_webhook_attempts", { deliveryId: props.deliveryId }),
    props.deliveryId,
  );
  if (attempts.error) return <ErrorBanner error={attempts.error} />;
  const list = attempts.data?.attempts ?? [];
  if (list.length === 0)
    return <span className="c-muted">{attempts.loading ? "Loading…" : "No attempt yet."}</span>;
  return (
    <ol className="c-stack">
      {list.map((a) => (
        <li key={a.attempt}>
          #{a.attempt} {formatTime(a.startedAt)} · {a.durationMs} ms ·{" "}
          {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? "no answer")}
        </li>
      ))}
    </ol>
  );
}

/** The webhook delivery log: each event sent to each endpoint, its attempts, and a redelivery button. */
export function Webhooks() {
  const { call } = useSession();
  const f = readFilters();
  const [open, setOpen] = useState<string>();
  const [tick, setTick] = useState(0);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<unknown>();
  const status = STATUSES.find((s) => s === f.status);
  const params = {
    ...(status ? { status } : {}),
    ...(f.eventType ? { eventType: f.eventType } : {}),
    ...(f.eventId ? { eventId: f.eventId } : {}),
  };
  const paged = usePaged(
    (cursor) => call("list_webhook_deliveries", { ...params, ...(cursor ? { cursor } : {}) }),
    `${JSON.stringify(params)}|${tick}`,
  );
  const redeliver = async (deliveryId: string) => {
    setError(undefined);
    setDone(undefined);
    try {
      await call("redeliver_webhook", { deliveryId });
      setDone("Sent again now, with the same webhook-id.");
      setTick((t) => t + 1);
    } catch (e) {
      setError(e);
    }
  };
  const items = paged.data?.items ?? [];
  return (
    <>
      <PageHead title="Webhook deliveries">Each event to each endpoint, newest first.</PageHead>
      <Filters path="/webhooks" fields={FIELDS} values={f} />
      {done ? <Notice>{done}</Notice> : null}
      <ErrorBanner error={error ?? paged.error} />
      <section className="c-card">
        <div className="c-table-wrap">
          <table className="c-table" aria-label="Webhook deliveries">
            <thead>
              <tr>
                <th>Created</th>
                <th>Event</th>
                <th>Endpoint</th>
                <th>Status</th>
                <th className="c-num">Attempts</th>
                <th>Last answer</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  <td className="c-nowrap">{formatTime(d.createdAt)}</td>
                  <td>
                    {d.eventType}
                    <div className="mono c-muted">{d.eventId}</div>
                  </td>
                  <td className="mono">{d.url}</td>
                  <td>
                    <Badge>{d.status}</Badge>
                  </td>
                  <td className="c-num">{d.attempts}</td>
                  <td>
                    {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "")}
                    {open === d.id ? <Attempts deliveryId={d.id} /> : null}
                  </td>
                  <td>
                    <span className="c-row">
                      <button
                        type="button"
                        className="c-btn c-btn-secondary c-btn-small"
                        onClick={() => setOpen(open === d.id ? undefined : d.id)}
                      >
                        {open === d.id ? "Hide attempts" : "Attempts"}
                      </button>
                      <button
                        type="button"
                        className="c-btn c-btn-secondary c-btn-small"
                        onClick={() => void redeliver(d.id)}
                      >
                        Redeliver
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!paged.loading && items.length === 0 ? <p className="c-empty">No delivery matches.</p> : null}
        <Pager paged={paged} label="Webhook deliveries" />
      </section>
    </>
  );
}
