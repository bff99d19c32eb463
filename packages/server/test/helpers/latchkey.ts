/**
 * `latchkey <args>` run in the test's own process: `main` from src/cli with this run's environment,
 * directory and output, for the many tests where the process is not the point (help, argument errors,
 * `app create`, `backup`, `users import` reports). Tests where it is (`serve`, workers, SIGKILL, two
 * instances) start `LATCHKEY_BIN`, which runs the CLI built once per run (test-support/buildCli.ts).
 *
 * The commands write to process.stdout and read process.env and relative paths: for the duration of one
 * run those are this run's, and runs take turns. Like bin/latchkey.js, a thrown error is
 * `latchkey: <message>` on stderr and exit code 1.
 */
import { resolve } from "node:path";
import { main } from "../../src/cli/index";

export const LATCHKEY_BIN = resolve(__dirname, "../../bin/latchkey.js");

export interface LatchkeyIo {
  /** The whole environment of the run (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Its working directory (default: this process's). */
  cwd?: string;
}

export interface LatchkeyRun {
  code: number;
  stdout: string;
  stderr: string;
}

let turn: Promise<unknown> = Promise.resolve();

/** Runs `latchkey <args>` in this process: its exit code and output, never throwing. */
export function latchkey(args: string[], io: LatchkeyIo = {}): Promise<LatchkeyRun> {
  const run = turn.then(() => runNow(args, io));
  turn = run.catch(() => {});
  return run;
}

async function runNow(args: string[], io: LatchkeyIo): Promise<LatchkeyRun> {
  const out = { stdout: "", stderr: "" };
  const saved = { env: { ...process.env }, cwd: process.cwd() };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = (to: "stdout" | "stderr") =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[to] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  if (io.env) setEnv(io.env);
  if (io.cwd) process.chdir(io.cwd);
  process.stdout.write = capture("stdout");
  process.stderr.write = capture("stderr");
  let code: number;
  try {
    code = await main(args);
    if (code < 0) throw new Error(`latchkey ${args.join(" ")} keeps running: start it as a process`);
  } catch (e) {
    out.stderr += `latchkey: ${e instanceof Error ? e.message : String(e)}\n`;
    code = 1;
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    process.chdir(saved.cwd);
    setEnv(saved.env);
  }
  return { code, ...out };
}

function setEnv(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}
