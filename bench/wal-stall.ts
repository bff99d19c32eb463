/**
 * SQLite under writes that never pause, as the service opens it (db/index.ts): back-to-back inserts for
 * 20 s (× --scale) with the event loop turning between them, as a busy server's does. Reports how long
 * the event loop was held (its delay percentiles, and every stall over 20 ms), which writes waited over
 * 20 ms, how large the write-ahead log's file grew and how often the log started over. Once it passes
 * ~64 MiB the checkpoint thread restarts it while this process's database work waits; the event loop
 * should never wait for it.
 *
 *   npm run bench:wal-stall [-- --scale=0.5]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "kysely";
import { openDatabase } from "../packages/server/src/db/index";
import { walFile } from "../packages/server/src/db/walFile";
import { scaleArg } from "./lib/args";
import { describeMachine, finishBench, machineInfo, round, runBench } from "./lib/report";

const STALL_MS = 20;
const ROW_BYTES = 1_500;

async function main() {
  const machine = machineInfo();
  const seconds = 20 * scaleArg();
  process.stdout.write(`wal-stall benchmark — ${describeMachine(machine)}\n`);
  const dir = mkdtempSync(join(tmpdir(), "latchkey-wal-stall-"));
  const file = join(dir, "bench.db");
  const opened = openDatabase(file);
  try {
    const { db } = opened;
    await sql`create table t (id integer primary key, v text)`.execute(db);
    const walSize = () => walFile(file).bytes;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const stalls: number[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      if (now - last > STALL_MS) stalls.push(round(now - last, 1));
      last = now;
    }, 2);
    let largestWal = 0;
    const restarts = () => walFile(file).restarts;
    const restartsBefore = restarts();
    let rows = 0;
    // Writes that waited: behind a restart of the log (this process's database work is held meanwhile).
    const slowWrites: number[] = [];
    const payload = "x".repeat(ROW_BYTES);
    delay.enable();
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      const t0 = performance.now();
      await sql`insert into t (v) values (${payload})`.execute(db);
      const took = performance.now() - t0;
      if (took > STALL_MS) slowWrites.push(round(took, 1));
      rows++;
      if (rows % 8 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        largestWal = Math.max(largestWal, walSize());
      }
    }
    const elapsed = (performance.now() - started) / 1000;
    const walRestarts = restarts() - restartsBefore;
    delay.disable();
    clearInterval(ticker);
    const ms = (ns: number) => round(ns / 1e6, 2);
    const result = {
      seconds: round(elapsed, 1),
      rowsPerSecond: Math.round(rows / elapsed),
      writtenMB: round((rows * ROW_BYTES) / 1e6, 1),
      eventLoopDelayMs: {
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        p999: ms(delay.percentile(99.9)),
        max: ms(delay.max),
      },
      stallsOver20Ms: stalls.length,
      worstStallsMs: stalls.sort((a, b) => b - a).slice(0, 5),
      writesOver20Ms: slowWrites.length,
      slowestWritesMs: slowWrites.sort((a, b) => b - a).slice(0, 5),
      largestWalMB: round(largestWal / 1e6, 1),
      walRestarts,
    };
    process.stdout.write(
      `${rows} inserts in ${result.seconds} s (${result.rowsPerSecond}/s, ${result.writtenMB} MB)\n` +
        `event loop delay: p50 ${result.eventLoopDelayMs.p50} ms, p99 ${result.eventLoopDelayMs.p99} ms, ` +
        `p99.9 ${result.eventLoopDelayMs.p999} ms, max ${result.eventLoopDelayMs.max} ms\n` +
        `stalls over ${STALL_MS} ms: ${stalls.length} (worst ${result.worstStallsMs.join(", ") || "none"})\n` +
        `writes over ${STALL_MS} ms: ${slowWrites.length} (slowest ${result.slowestWritesMs.join(", ") || "none"})\n` +
        `write-ahead log: file up to ${result.largestWalMB} MB, started over ${walRestarts} times\n`,
    );
    finishBench("wal-stall.json", { date: new Date().toISOString(), machine, ...result }, undefined);
  } finally {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
