import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";

const exec = promisify(execFile);

/** Runs a command in `cwd`; on failure the error carries its output. */
export async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    return await exec(command, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: "false", ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}\n${e.stderr ?? ""}\n${e.message}`,
    );
  }
}

/**
 * `npm install` in an app folder, with this build's client tarballs and `extra` from the registry. The
 * service's tarball is not among them: an app does not depend on it, and installing it compiled its
 * native modules (better-sqlite3, secp256k1) once more per app, most of each install's minute and a half.
 */
export function installWithTarballs(cwd: string, extra: string[] = []) {
  const tarballs = Object.entries(inject("tarballs"))
    .filter(([name]) => name !== "@latchkey/server")
    .map(([, file]) => file);
  return run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, ...extra],
    cwd,
  );
}

export interface RunningService {
  url: string;
  apiKey: string;
  /** The newest 6-digit code mailed to `to` (the dev mailbox). */
  code(to: string): Promise<string>;
  stop(): Promise<void>;
}

/** `latchkey serve --dev` from the installed tarball, on a free port, in a fresh working folder. */
export async function startService(cwd: string): Promise<RunningService> {
  const bin = join(inject("serviceDir"), "node_modules/@latchkey/server/bin/latchkey.js");
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, "serve", "--dev", "--port", "0", "--log-level", "warn"],
    {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (/Dev mailbox:/.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`the service exited (${code}):\n${out}`)));
  });
  const url = /signer service on (http:\/\/\S+)/.exec(ready)?.[1] as string;
  const apiKey = /Dev app API key: (\S+)/.exec(ready)?.[1] as string;
  return {
    url,
    apiKey,
    async code(to) {
      for (let i = 0; i < 200; i++) {
        const mails = (await (await fetch(`${url}/dev/mailbox.json`)).json()) as {
          to: string;
          subject: string;
        }[];
        const code = mails
          .filter((m) => m.to === to)
          .map((m) => /\b(\d{6})\b/.exec(m.subject)?.[1])
          .at(-1);
        if (code) return code;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no code mailed to ${to}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Serves a built app's folder on http://localhost:PORT, with `inject` added to its index.html's head. */
export async function serveStatic(
  dir: string,
  injectHead: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = normalize(join(dir, path));
    let body: Buffer;
    let type = TYPES[extname(file)];
    try {
      if (!file.startsWith(dir) || !type || path === "/") throw new Error("index");
      body = readFileSync(file);
    } catch {
      type = TYPES[".html"];
      body = Buffer.from(
        readFileSync(join(dir, "index.html"), "utf8").replace("<head>", `<head>${injectHead}`),
      );
    }
    res.writeHead(200, { "content-type": type ?? "application/octet-stream" }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
