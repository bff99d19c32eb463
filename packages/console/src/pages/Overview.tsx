import type { AdminResponse } from "@latchkey/protocol";
import { useMemo, useState } from "react";
import { Chart, type ChartSeries } from "../components/Chart";
import { useLoad, useSession } from "../components/session";
import { ErrorBanner, PageHead } from "../components/ui";

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type SpendDay = AdminResponse<"sponsorship_spend">["days"][number];
type StatsDay = AdminResponse<"daily_stats">["days"][number];

/** An amount in base units (wei, lamports) as a number of whole coins, for the chart's scale. */
const coins = (units: string, decimals: number) => Number(BigInt(units)) / 10 ** decimals;

/** One series per policy of a chain: its amount per day (exact amounts in the table). */
function spendSeries(
  days: string[],
  rows: SpendDay[],
  chain: "evm" | "solana",
): { series: ChartSeries[]; total: number } {
  const decimals = chain === "evm" ? 18 : 9;
  const unit = chain === "evm" ? "wei" : "lamports";
  const byPolicy = new Map<string, Map<string, string>>();
  for (const r of rows) {
    if (r.chain !== chain) continue;
    const amount = (chain === "evm" ? r.wei : r.feeLamports) ?? "0";
    const policy = byPolicy.get(r.policyId) ?? new Map<string, string>();
    policy.set(r.day, amount);
    byPolicy.set(r.policyId, policy);
  }
  let total = 0;
  const series = [...byPolicy.entries()].map(([policyId, amounts]) => {
    const exact = days.map((d) => amounts.get(d) ?? "0");
    const values = exact.map((a) => coins(a, decimals));
    total += values.reduce((s, v) => s + v, 0);
    return { label: policyId, values, format: (_v: number | null, i: number) => `${exact[i]} ${unit}` };
  });
  return { series, total };
}

const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);
const amountFormat = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 3 });
const formatAmount = (n: number) => amountFormat.format(n);

/** The app at a glance: sign-ups, active users, signatures, sponsorship spend and failed sign-ins per day. */
export function Overview() {
  const { call } = useSession();
  const [range, setRange] = useState<(typeof RANGES)[number]>(30);
  const [asOf, setAsOf] = useState(() => Date.now());
  const toDay = dayOf(asOf);
  const fromDay = dayOf(asOf - (range - 1) * DAY_MS);
  const stats = useLoad(
    () =>
      Promise.all([call("daily_stats", { fromDay, toDay }), call("sponsorship_spend", { fromDay, toDay })]),
    `${fromDay}|${toDay}|${asOf}`,
  );
  const [daily, spend] = stats.data ?? [undefined, undefined];

  const charts = useMemo(() => {
    if (!daily || !spend) return null;
    const days = daily.days.map((d) => d.day);
    const one = (label: string, pick: (d: StatsDay) => number): ChartSeries[] => [
      { label, values: daily.days.map(pick) },
    ];
    return {
      days,
      signUps: one("Sign-ups", (d) => d.signUps),
      active: one("Active users", (d) => d.activeUsers),
      signatures: one("Signatures", (d) => d.signatures),
      failed: one("Failed sign-ins", (d) => d.failedSignIns),
      evm: spendSeries(days, spend.days, "evm"),
      solana: spendSeries(days, spend.days, "solana"),
    };
  }, [daily, spend]);

  return (
    <>
      <PageHead
        title="Overview"
        actions={
          <>
            <select
              className="c-select"
              aria-label="Range"
              value={range}
              onChange={(e) => setRange(Number(e.target.value) as (typeof RANGES)[number])}
            >
              {RANGES.map((r) => (
                <option key={r} value={r}>
                  Last {r} days
                </option>
              ))}
            </select>
            <button type="button" className="c-btn c-btn-secondary" onClick={() => setAsOf(Date.now())}>
              Refresh
            </button>
          </>
        }
      >
        {fromDay} to {toDay} (UTC days)
      </PageHead>
      <ErrorBanner error={stats.error} />
      {charts ? (
        <div className="c-grid">
          <Chart
            title="Sign-ups per day"
            testId="chart-signups"
            integer
            days={charts.days}
            series={charts.signUps}
            headline={String(sum(daily?.days.map((d) => d.signUps) ?? []))}
          />
          <Chart
            title="Active users per day"
            testId="chart-active"
            integer
            days={charts.days}
            series={charts.active}
          />
          <Chart
            title="Signatures per day"
            testId="chart-signatures"
            integer
            days={charts.days}
            series={charts.signatures}
            headline={String(sum(daily?.days.map((d) => d.signatures) ?? []))}
          />
          <Chart
            title="Sponsorship spend per day (ETH reserved)"
            testId="chart-spend-evm"
            days={charts.days}
            series={
              charts.evm.series.length
                ? charts.evm.series
                : [{ label: "Spend", values: charts.days.map(() => 0), format: () => "0 wei" }]
            }
            headline={`${formatAmount(charts.evm.total)} ETH`}
          />
          {charts.solana.series.length ? (
            <Chart
              title="Sponsorship spend per day (SOL fees)"
              testId="chart-spend-solana"
              days={charts.days}
              series={charts.solana.series}
              headline={`${formatAmount(charts.solana.total)} SOL`}
            />
          ) : null}
          <Chart
            title="Failed sign-ins per day"
            testId="chart-failed"
            integer
            days={charts.days}
            series={charts.failed}
            headline={String(sum(daily?.days.map((d) => d.failedSignIns) ?? []))}
          />
        </div>
      ) : stats.loading ? (
        <p className="c-muted">Loading…</p>
      ) : null}
    </>
  );
}
