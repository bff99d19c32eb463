import { useState } from "react";
import { ConfirmButton } from "../components/ConfirmButton";
import { HeldPreview } from "../components/HeldPreview";
import { Pager } from "../components/Pager";
import { usePaged, useSession } from "../components/session";
import { ErrorBanner, formatTime, Notice, PageHead, shortType } from "../components/ui";
import { Link } from "../router";

/**
 * Signatures the app's signing policy holds for an admin (ACTIVITY_STATUS_CONSENSUS_NEEDED), each with what
 * it does (the decoded summary, its warnings, the simulated balance changes or why there are none), the
 * rule that held it and how many of the approvals it needs it has ("1 of 2 approvals"): approve one (the
 * policy is asked again; once enough distinct admins approved, it is signed) or reject it (never signed). A split-custody wallet's
 * approved signature stays listed until the user's device completes it (docs/split-custody.md §7).
 */
export function Approvals() {
  const { call } = useSession();
  const [tick, setTick] = useState(0);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<unknown>();
  const paged = usePaged(
    (cursor) =>
      call("list_activities", {
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        locale: "en",
        ...(cursor ? { cursor } : {}),
      }),
    String(tick),
  );
  const decide = async (activityId: string, decision: "approve_activity" | "reject_activity") => {
    setError(undefined);
    setDone(undefined);
    try {
      const r = await call(decision, { activityId });
      const a = r.approvals;
      setDone(
        a && r.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" && a.approved < a.required
          ? `Activity ${r.activityId}: ${
              a.duplicate ? "you approved it already" : "approved"
            } (${a.approved} of ${a.required} approvals). It needs ${a.required - a.approved} more from another admin.`
          : r.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED"
            ? `Activity ${r.activityId}: approved. The user's device completes the signature (split custody).`
            : `Activity ${r.activityId}: ${r.status.replace("ACTIVITY_STATUS_", "")}`,
      );
    } catch (e) {
      setError(e);
    }
    setTick((t) => t + 1);
  };
  const items = paged.data?.items ?? [];
  return (
    <>
      <PageHead title="Approvals">Signatures waiting for an admin's decision, newest first.</PageHead>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorBanner error={error ?? paged.error} />
      <section className="c-card">
        <div className="c-table-wrap">
          <table className="c-table" aria-label="Held activities">
            <thead>
              <tr>
                <th>Held since</th>
                <th>Type</th>
                <th>User</th>
                <th>Activity</th>
                <th>What it does</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.activityId} data-activity-id={a.activityId}>
                  <td className="c-nowrap">{formatTime(a.createdAt)}</td>
                  <td>{shortType(a.type)}</td>
                  <td className="mono">
                    <Link to={`/users/${encodeURIComponent(a.userId)}`}>{a.userId.slice(0, 8)}</Link>
                  </td>
                  <td className="mono">{a.activityId}</td>
                  <td>
                    <HeldPreview preview={a.preview} approvals={a.approvals} />
                  </td>
                  <td>
                    <span className="c-row">
                      {a.approval && a.approval.expiresAt > Date.now() ? (
                        <span className="c-muted" data-approved-until={a.approval.expiresAt}>
                          Approved by {a.approval.approvedBy}, waiting for the user's device until{" "}
                          {formatTime(a.approval.expiresAt)}
                        </span>
                      ) : (
                        <ConfirmButton
                          small
                          tone="primary"
                          label="Approve"
                          confirmLabel="Approve and sign"
                          onConfirm={() => decide(a.activityId, "approve_activity")}
                        />
                      )}
                      <ConfirmButton
                        small
                        label="Reject"
                        confirmLabel="Reject"
                        onConfirm={() => decide(a.activityId, "reject_activity")}
                      />
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!paged.loading && items.length === 0 ? <p className="c-empty">Nothing waits for approval.</p> : null}
        <Pager paged={paged} label="Held activities" />
      </section>
    </>
  );
}
