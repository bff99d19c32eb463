import { join, resolve } from "node:path";
import type { BenchDatabase } from "./databases";
import { BENCH_DATABASES } from "./databases";
import { RESULTS_DIR } from "./paths";
/** `--cpu-prof[=dir]` on the bench command line: profile the service; returns the directory or undefined. */
export function cpuProfArg(argv = process.argv.slice(2)): string | undefined {
  for (const a of argv) {
    if (a === "--cpu-prof") return join(RESULTS_DIR, "prof");
    if (a.startsWith("--cpu-prof=")) return resolve(a.slice("--cpu-prof=".length));
  }
  return undefined;
}

/** `--workers=<n[,m…]>`: the service process counts to measure (default 1 and 2). */
export function workersArg(argv = process.argv.slice(2)): number[] {
  const a = argv.find((x) => x.startsWith("--workers="));
  const list = (a ? a.slice("--workers=".length) : "1,2").split(",").map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error("--workers takes whole numbers ≥ 1, e.g. 1,2");
  return list;
}

/**
 * `--db=<sqlite|postgres>`: the databases to run the service on (default sqlite); `--db=sqlite,postgres`
 * measures both, one after the other.
 */
export function dbArg(argv = process.argv.slice(2)): BenchDatabase[] {
  if (argv.includes("--db")) throw new Error("Write --db=sqlite, --db=postgres or --db=sqlite,postgres");
  const a = argv.find((x) => x.startsWith("--db="));
  const list = [
    ...new Set(
      (a ? a.slice("--db=".length) : "sqlite")
        .split(",")
        .map((d) => d.trim())
        .filter(Boolean),
    ),
  ];
  const bad = list.filter((d) => !(BENCH_DATABASES as readonly string[]).includes(d));
  if (list.length === 0 || bad.length > 0)
    throw new Error(`--db takes sqlite, postgres or both (sqlite,postgres); got ${a ?? ""}`);
  return list as BenchDatabase[];
}

/** `--scale=<f>` multiplies every request count (e.g. 0.1 for a quick smoke run). */
export function scaleArg(argv = process.argv.slice(2)): number {
  const a = argv.find((x) => x.startsWith("--scale="));
  const f = a ? Number(a.slice("--scale=".length)) : 1;
  if (!Number.isFinite(f) || f <= 0) throw new Error("--scale must be a positive number");
  return f;
}
