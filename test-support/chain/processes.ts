import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ORPHAN_GUARD = fileURLToPath(new URL("./orphanGuard.cjs", import.meta.url));
/** How much of a child's output is kept for error messages and readiness checks: its start and its end. */
const OUTPUT_HEAD = 16_000;
const OUTPUT_TAIL = 8_000;

/** A Node program running in its own process group, stopped as a group. */
export interface ProcessGroup {
  name: string;
  pid: number;
  /** The first and the last few KB of its stdout and stderr. */
  output(): string;
  /** The exit code (or signal name), once it exited. */
  exitStatus(): string | undefined;
  /** Writes one line to its stdin. */
  writeLine(line: string): void;
  /** Resolves when the process exited, with whether `stop()` had been called. */
  exited: Promise<{ stopped: boolean }>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the leader is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Last resort: when this process exits with children still running, kill their groups. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) killGroup(child, "SIGKILL");
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is gone already
  }
}

/**
 * Runs `node <script> <args>` detached, in its own process group (so `stop()` reaches anything it starts),
 * with the orphan guard preloaded (it exits when this process dies) and its output drained into a tail
 * (and copied to this process's stderr with `echo`).
 */
export function spawnNodeGroup(
  name: string,
  script: string,
  args: string[],
  { cwd, echo = false, env = {} }: { cwd: string; echo?: boolean; env?: Record<string, string> },
): ProcessGroup {
  const child = spawn(process.execPath, ["--require", ORPHAN_GUARD, script, ...args], {
    cwd,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: {
      ...process.env,
      HARDHAT_DISABLE_TELEMETRY_PROMPT: "true",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      ...env,
    },
  });
  if (child.pid === undefined) throw new Error(`${name}: spawn failed`);
  installExitHook();
  live.add(child);
  let head = "";
  let tail = "";
  let dropped = false;
  const keep = (chunk: Buffer) => {
    if (echo) process.stderr.write(chunk);
    const text = chunk.toString();
    if (head.length < OUTPUT_HEAD) head += text;
    else {
      dropped ||= tail.length + text.length > OUTPUT_TAIL;
      tail = (tail + text).slice(-OUTPUT_TAIL);
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.stdin?.on("error", () => {}); // EPIPE once it is gone
  let status: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      status = signal ?? String(code);
      live.delete(child);
      resolve();
    }),
  );
  let stopping: Promise<void> | undefined;
  return {
    exited: exited.then(() => ({ stopped: stopping !== undefined })),
    name,
    pid: child.pid,
    output: () => (dropped ? `${head}\n[…]\n${tail}` : head + tail),
    exitStatus: () => status,
    writeLine: (line) => void child.stdin?.write(`${line}\n`),
    stop(graceMs = 3_000) {
      stopping ??= stopGroup(child, exited, graceMs, () => status !== undefined);
      return stopping;
    },
  };
}

async function stopGroup(child: ChildProcess, exited: Promise<void>, graceMs: number, isGone: () => boolean) {
  if (!isGone()) {
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
  killGroup(child, "SIGKILL"); // anything the leader left behind in its group
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** One JSON-RPC call; `undefined` when nothing answers (yet). */
export async function tryRpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(2_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: unknown };
    return body.result;
  } catch {
    return undefined;
  }
}

/**
 * Polls `method` on `url` until it answers (and, with `readyLine`, until the group printed that line too, which
 * proves that this process, not another one, holds the port); fails early, with its output, when it exits.
 */
export async function waitForRpc(
  group: ProcessGroup,
  url: string,
  method: string,
  { readyLine, timeoutMs = 30_000 }: { readyLine?: RegExp; timeoutMs?: number } = {},
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = group.exitStatus();
    if (exit !== undefined) throw new ProcessExitedError(group, exit);
    const result = await tryRpc(url, method);
    if (result !== undefined && (!readyLine || readyLine.test(group.output()))) return result;
    if (Date.now() > deadline) {
      throw new Error(
        `${group.name} did not answer ${method} on ${url} within ${timeoutMs} ms:\n${group.output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A child process exited before it was ready; `portInUse` when its output says its port was taken. */
export class ProcessExitedError extends Error {
  readonly portInUse: boolean;
  constructor(group: ProcessGroup, exit: string) {
    const output = group.output();
    super(`${group.name} exited (${exit}) before it was ready:\n${output}`);
    this.portInUse = /EADDRINUSE|address already in use/i.test(output);
  }
}
