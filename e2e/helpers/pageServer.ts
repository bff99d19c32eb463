/**
 * Vitest's global setup for the browser tests: builds each e2e page (pages.ts) at most once per run, on the
 * first test file's request, and hands every file the same folder. Before, each e2e file made its own Vite
 * production build of its page (21 near-identical builds, 10–20 s CPU each). Each build runs in a process
 * of its own (buildPageCli.ts): in vitest's main process it would hold up the module transforms that
 * process serves to the test workers, and two builds would share one core.
 *
 * The test workers ask over loopback HTTP (LATCHKEY_E2E_PAGES: `GET /<page>` answers the folder's path once
 * built, or 500 with the build's error). The pages the run's files use start building at once, one after
 * the other (vitest runs this project only for a run with browser files, and those after the unit tests):
 * a run of one file builds only its page. The folders are removed when the run ends.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { PAGE_NAMES, type PageName } from "./pages";

const CLI = fileURLToPath(new URL("./buildPageCli.ts", import.meta.url));

/** Builds the page in a child process (its output only when it fails). */
function buildInChild(name: PageName, outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, name, outDir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`build of ${name} exited ${signal ?? code}:\n${output}`)),
    );
  });
}

/**
 * The pages the run's files will ask for, read from their source (`startStack("demo"`, `nodeEnv`,
 * `pageDir("host"`): built ahead, while the unit tests run. A miss costs only time (the file's request
 * builds it) and an extra only CPU.
 */
function pagesOfRun(project: TestProject): PageName[] {
  // Vitest's list of the run's files (internal API: without it, every page builds on first request).
  const state = (project.vitest as unknown as { state?: { getPaths?(): string[] } }).state;
  const wanted = new Set<PageName>();
  for (const path of state?.getPaths?.() ?? []) {
    let source: string;
    try {
      source = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    for (const m of source.matchAll(/startStack\(\s*"([\w-]+)"([^)]*)\)|pageDir\(\s*"([\w-]+)"/g)) {
      const name = m[3] ?? (m[1] === "host" && /nodeEnv/.test(m[2] ?? "") ? "host-development" : m[1]);
      if (PAGE_NAMES.includes(name as PageName)) wanted.add(name as PageName);
    }
  }
  return [...wanted];
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-e2e-pages-"));
  const builds = new Map<PageName, Promise<string>>();
  const page = (name: PageName): Promise<string> => {
    let built = builds.get(name);
    if (!built) {
      const outDir = join(dir, name);
      built = buildInChild(name, outDir).then(() => outDir);
      builds.set(name, built);
    }
    return built;
  };
  // Ahead of the files' requests, one build at a time (a requested page starts at once).
  const ahead = pagesOfRun(project);
  void (async () => {
    for (const name of ahead) await page(name).catch(() => {});
  })();
  const server = createServer((req, res) => {
    const name = (req.url ?? "").slice(1) as PageName;
    if (!PAGE_NAMES.includes(name)) {
      res.writeHead(404).end(`no page ${name}`);
      return;
    }
    page(name).then(
      (outDir) => res.writeHead(200, { "content-type": "text/plain" }).end(outDir),
      (e: unknown) =>
        res.writeHead(500, { "content-type": "text/plain" }).end(e instanceof Error ? e.stack : String(e)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The test workers start after this, with this environment.
  process.env.LATCHKEY_E2E_PAGES = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    // A build still running (a run stopped early) finishes before its folder goes.
    await Promise.allSettled(builds.values());
    rmSync(dir, { recursive: true, force: true });
  };
}
