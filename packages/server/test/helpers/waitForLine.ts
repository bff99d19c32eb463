import type { ChildProcess } from "node:child_process";

/** Resolves with a child process's output once it matches `pattern`; rejects on exit or after `timeoutMs`. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 45_000): Promise<string> {
  return new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`timed out; output:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        res(out);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => rej(new Error(`exited ${code}; output:\n${out}`)));
  });
}
