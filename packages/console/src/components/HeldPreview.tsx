import type { PreviewBalanceChange, PreviewSimulation, SigningPreview } from "@latchkey/protocol";

/** The approvals a held signature needs and has (the admin API's `approvals`). */
export interface HeldApprovals {
  required: number;
  approvedBy: { admin: string; approvedAt: number }[];
}

/** The label before each warning's sentence, as the modal words it. */
const WARNING_LABELS: Record<string, string> = {
  unlimitedApproval: "Unlimited approval",
  operatorApproval: "All the user's tokens",
  permitToUnknownSpender: "Unknown spender",
  delegationNotAllowed: "Unknown delegate",
  transferToZeroAddress: "Zero address",
  valueAboveThreshold: "Large amount",
};

const UNAVAILABLE: Record<Extract<PreviewSimulation, { status: "unavailable" }>["reason"], string> = {
  noRpc: "no RPC is configured for this chain",
  unsupported: "the chain's node cannot simulate",
  timeout: "the chain's node did not answer in time",
  error: "the chain's node answered an error",
  notApplicable: "nothing to simulate (not a transaction)",
};

/** Raw units as a decimal with `decimals` places, exact (no rounding): "-1.5". */
export function formatUnits(raw: string, decimals: number): string {
  const negative = raw.startsWith("-");
  const digits = (negative ? raw.slice(1) : raw).replace(/^\+/, "").padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals).replace(/^0+(?=\d)/, "");
  const fraction = decimals ? digits.slice(digits.length - decimals).replace(/0+$/, "") : "";
  return `${negative ? "-" : "+"}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** One balance change as an admin reads it: "-1.5 USDC", "+0.01 ETH", or raw units of an unknown token. */
export function balanceChangeText(change: PreviewBalanceChange): string {
  const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;
  const asset = change.asset === "native" ? (change.symbol ?? "ETH") : (change.symbol ?? short(change.asset));
  const decimals = change.asset === "native" ? (change.decimals ?? 18) : change.decimals;
  if (decimals === undefined) return `${formatUnits(change.delta, 0)} units of ${asset}`;
  return `${formatUnits(change.delta, decimals)} ${asset}`;
}

/** What the simulation says, in one sentence (the balance changes are listed apart). */
export function simulationText(simulation: PreviewSimulation): string {
  if (simulation.status === "unavailable") {
    // The node's own words help where the reason alone does not say what went wrong.
    const detail = simulation.reason === "error" || simulation.reason === "unsupported";
    return `Simulation unavailable: ${UNAVAILABLE[simulation.reason] ?? simulation.reason}${
      detail && simulation.message ? ` (${simulation.message})` : ""
    }`;
  }
  if (simulation.reverts)
    return `Simulated: it reverts${simulation.revertReason ? ` (${simulation.revertReason})` : ""}`;
  return simulation.balanceChanges.length ? "Simulated balance changes:" : "Simulated: no balance changes";
}

/**
 * A held signature as the approver sees it: what it does (the decoded summary, the same sentences the
 * user's modal and the CLI show), its warnings, the simulated balance changes or why there are none, the
 * rule that held it, and how many of the approvals it needs it has.
 */
export function HeldPreview({
  preview,
  approvals,
}: {
  preview?: SigningPreview | undefined;
  approvals?: HeldApprovals | undefined;
}) {
  return (
    <div className="c-held" data-testid="held-preview">
      {preview ? (
        <>
          <p className="c-held-title">{preview.summary.title}</p>
          {preview.summary.warnings.length > 0 && (
            <ul className="c-held-warnings" aria-label="Warnings">
              {preview.summary.warnings.map((text, i) => {
                const label = WARNING_LABELS[preview.warnings[i]?.kind ?? ""];
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no identity but their place
                  <li key={i}>
                    {label ? <strong>{label}: </strong> : null}
                    {text}
                  </li>
                );
              })}
            </ul>
          )}
          <ul className="c-held-lines" aria-label="What it does">
            {preview.summary.lines.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
              <li key={i} style={line.depth ? { marginLeft: line.depth * 16 } : undefined}>
                {line.text}
              </li>
            ))}
          </ul>
          <p className="c-muted c-held-simulation">{simulationText(preview.simulation)}</p>
          {preview.simulation.status === "ok" && preview.simulation.balanceChanges.length > 0 && (
            <ul className="c-held-changes" aria-label="Balance changes">
              {preview.simulation.balanceChanges.map((c) => (
                <li key={c.asset} data-negative={c.delta.startsWith("-")}>
                  {balanceChangeText(c)}
                </li>
              ))}
            </ul>
          )}
          {preview.policy.ruleId ? (
            <p className="c-muted c-held-rule">
              Held by rule <code>{preview.policy.ruleId}</code>
              {preview.policy.description ? `: ${preview.policy.description}` : ""}
            </p>
          ) : null}
        </>
      ) : (
        <p className="c-muted">No preview was recorded for this signature.</p>
      )}
      {approvals ? (
        <p
          className="c-held-approvals"
          data-approvals={`${approvals.approvedBy.length}/${approvals.required}`}
        >
          {approvals.approvedBy.length} of {approvals.required} approvals
          {approvals.approvedBy.length
            ? ` (approved by ${approvals.approvedBy.map((a) => a.admin).join(", ")})`
            : ""}
        </p>
      ) : null}
    </div>
  );
}
