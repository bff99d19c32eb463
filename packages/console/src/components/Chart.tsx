import { useEffect, useRef } from "react";
import uPlot from "uplot";

/** One line of a chart: its name and a value per day (null: nothing that day). */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** How a value reads in the data table (exact amounts), if not as the number. */
  format?: (value: number | null, index: number) => string;
}

const COLORS = ["#4f46e5", "#0d9488", "#d97706", "#e11d48", "#0284c7", "#7c3aed", "#65a30d"];
const HEIGHT = 200;

const dayToSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const tickFormat = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 3 });
/** Ticks of counts are whole numbers. */
const INTEGER_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

/**
 * A daily chart drawn by uPlot (a canvas), with the same numbers in a table under it: what a screen
 * reader reads, what can be copied, and what the browser tests read.
 */
export function Chart(props: {
  title: string;
  testId: string;
  days: string[];
  series: ChartSeries[];
  /** The figure beside the title (e.g. the range's total). */
  headline?: string;
  /** Counts (whole numbers) rather than amounts. */
  integer?: boolean;
}) {
  const { title, testId, days, series, integer } = props;
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const muted = css.getPropertyValue("--lk-muted").trim() || "#64748b";
    const border = css.getPropertyValue("--lk-border").trim() || "#e2e8f0";
    const axis = { stroke: muted, grid: { stroke: border, width: 1 }, ticks: { stroke: border, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: HEIGHT,
        scales: {
          x: { time: true },
          // From zero, and a scale to show even when every value is zero.
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          axis,
          {
            ...axis,
            size: 68,
            ...(integer ? { incrs: INTEGER_TICKS } : {}),
            values: (_u, splits) => splits.map((v) => tickFormat.format(v)),
          },
        ],
        cursor: { drag: { x: false, y: false } },
        series: [
          {},
          ...series.map((s, i) => {
            const color = COLORS[i % COLORS.length] as string;
            return {
              label: s.label,
              stroke: color,
              width: 2,
              fill: series.length === 1 ? `${color}22` : undefined,
              points: { show: true, size: 5, fill: color },
              spanGaps: false,
            };
          }),
        ],
      },
      [days.map(dayToSeconds), ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(el.clientWidth, 280), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series, integer]);

  return (
    <section className="c-card" data-testid={testId} aria-label={title}>
      <div className="c-chart-head">
        <h2>{title}</h2>
        {props.headline ? <span className="c-total">{props.headline}</span> : null}
      </div>
      <div className="c-chart" ref={host} />
      <details className="c-chart-data">
        <summary>Data</summary>
        <div className="c-table-wrap">
          <table className="c-table">
            <thead>
              <tr>
                <th>Day</th>
                {series.map((s) => (
                  <th key={s.label} className="c-num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, i) => (
                <tr key={day} data-day={day}>
                  <td>{day}</td>
                  {series.map((s) => (
                    <td key={s.label} className="c-num" data-series={s.label}>
                      {s.format ? s.format(s.values[i] ?? null, i) : String(s.values[i] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
