import { createHash, pbkdf2Sync } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { loadNativePbkdf2 } from "../../packages/server/src/crypto/pbkdf2";
import type { LoadResult } from "./load";
import { RESULTS_DIR } from "./paths";
export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Latency figures of sequential samples in ms: count, mean, p50, p90 and max (one decimal). */
export function latencyStats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  return {
    n: s.length,
    meanMs: round(s.reduce((a, b) => a + b, 0) / s.length, 1),
    p50Ms: round(at(0.5), 1),
    p90Ms: round(at(0.9), 1),
    maxMs: round(s[s.length - 1] ?? Number.NaN, 1),
  };
}

/** Runs `fn` `n` times one after the other and answers each run's duration in ms. */
export async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemGiB: round(os.totalmem() / 2 ** 30, 1),
    calibration: calibrate(),
  };
}

/** "2 CPU(s) AMD EPYC, node v20…; one core: 410 BIP-39 seeds/s, SHA-512 450 MB/s" for a report's header. */
export function describeMachine(m: ReturnType<typeof machineInfo>): string {
  const c = m.calibration;
  const native = c.nativeSeedsPerSecond
    ? ` (native addon: ${c.nativeSeedsPerSecond}/s, ${c.nativeSeedLanes} at once)`
    : " (native addon not loaded)";
  return `${m.cpus} CPU(s) ${m.cpuModel}, node ${m.node}; one core: ${c.pbkdf2PerSecond} BIP-39 seeds/s by node:crypto${native}, SHA-512 ${c.sha512MBps} MB/s`;
}

let calibration:
  | {
      pbkdf2PerSecond: number;
      sha512MBps: number;
      nativeSeedsPerSecond: number | null;
      nativeSeedLanes: number | null;
    }
  | undefined;

/**
 * One core's speed at the work a sign-up is made of, measured on the spot (~0.75 s, once per process):
 * BIP-39 seeds per second (PBKDF2-HMAC-SHA512, 2,048 rounds) by node:crypto and by the native addon the
 * service uses where it loads (full batches, crypto/pbkdf2.ts), and SHA-512 throughput. Virtual machines
 * with the same CPU model have differed by 2× between sessions; these say which kind of machine a figure
 * is from (and whether it has AVX-512: 8 lanes).
 */
function calibrate() {
  if (calibration) return calibration;
  let t = performance.now();
  let seeds = 0;
  while (performance.now() - t < 250) {
    pbkdf2Sync("abandon abandon abandon", "mnemonic", 2048, 64, "sha512");
    seeds++;
  }
  const pbkdf2PerSecond = Math.round(seeds / ((performance.now() - t) / 1000));
  const chunk = Buffer.alloc(1 << 20);
  t = performance.now();
  let mb = 0;
  while (performance.now() - t < 250) {
    createHash("sha512").update(chunk).digest();
    mb++;
  }
  const sha512MBps = Math.round(mb / ((performance.now() - t) / 1000));
  const native = loadNativePbkdf2();
  let nativeSeedsPerSecond: number | null = null;
  if (native) {
    const batch = Array.from({ length: native.lanes }, () => Buffer.from("abandon abandon abandon"));
    const salts = batch.map(() => Buffer.from("mnemonic"));
    t = performance.now();
    seeds = 0;
    while (performance.now() - t < 250) {
      native.derive(batch, salts, 2048);
      seeds += batch.length;
    }
    nativeSeedsPerSecond = Math.round(seeds / ((performance.now() - t) / 1000));
  }
  calibration = {
    pbkdf2PerSecond,
    sha512MBps,
    nativeSeedsPerSecond,
    nativeSeedLanes: native?.lanes ?? null,
  };
  return calibration;
}

/** A plain-text table: one row per object, columns in the order given. */
export function table(rows: object[], columns: string[]): string {
  const cells = [
    columns,
    ...rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? ""))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  return [
    line(cells[0] as string[]),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map(line),
  ].join("\n");
}

export function printErrors(r: LoadResult): void {
  if (r.errors === 0 && Object.keys(r.warmupErrors).length === 0) return;
  process.stdout.write(
    `  ${r.errors} error(s) ${JSON.stringify(r.errorKinds)}, warm-up ${JSON.stringify(r.warmupErrors)}\n`,
  );
  for (const s of r.errorSamples) process.stdout.write(`    sample ${s}\n`);
}

/** A run as stored in bench/results (without the diagnostic samples). */
export function runRecord<R extends LoadResult>(r: R) {
  const { errorSamples: _samples, latencies: _latencies, durationMs, ...kept } = r;
  // A sustained run's length is part of its figure.
  return r.perSecond ? { ...kept, durationMs } : kept;
}

/**
 * CPU time (user + system, ms) used so far by the service: the process `pid` and its direct children
 * (cluster workers). Read from /proc, so it is 0 where there is none. Taken around a run, it gives the
 * service's CPU per request, which VM noise and the load generator's share of the CPUs disturb far less
 * than throughput.
 */
export function serviceCpuMs(pid: number): number {
  return cpuOfTree(pid, (p) => `/proc/${p}/stat`);
}

/**
 * The CPU time of the service's event loops: the main thread of its process and of each child process,
 * without worker threads or libuv's thread pool. One event loop is what bounds one process's requests.
 */
export function eventLoopCpuMs(pid: number): number {
  return cpuOfTree(pid, (p) => `/proc/${p}/task/${p}/stat`);
}

/** User + system ms of `pid` and its child processes, each read from `statPath(pid)`. */
function cpuOfTree(pid: number, statPath: (pid: number) => string): number {
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const read = (p: number) => {
    try {
      const stat = readFileSync(statPath(p), "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / ticksPerMs };
    } catch {
      return undefined;
    }
  };
  let total = read(pid)?.cpu ?? 0;
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const child = read(Number(entry));
      if (child && child.ppid === pid) total += child.cpu;
    }
  } catch {
    // no /proc
  }
  return total;
}

/** Writes the results file, says where, and where the CPU profile went when one was taken. */
export function finishBench(name: string, data: unknown, cpuProfDir: string | undefined): void {
  process.stdout.write(`\nWrote ${writeResults(name, data)}\n`);
  if (cpuProfDir)
    process.stdout.write(
      `Service CPU profile in ${cpuProfDir} (summarise: npx tsx bench/profile-summary.ts ${cpuProfDir})\n`,
    );
}

/** Runs a bench's main; a failure prints its stack and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, name);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
