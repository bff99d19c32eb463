/**
 * Vitest's global setup: builds the `latchkey` CLI once per `vitest run`, from the current source, and
 * points the tests' `latchkey` processes at it (LATCHKEY_CLI, read by packages/server/bin/latchkey.js).
 * A process started from the build spends 2–3× less CPU than one compiling the TypeScript through tsx, and
 * the suite starts dozens of them (`serve`, workers, SIGKILL, two instances: where the process is the
 * point; the other commands run in the test's own process, test/helpers/latchkey.ts).
 *
 * The build is the CLI entry and the wallet worker, bundled with our workspace packages from their source
 * (so no package needs its own dist first) and every npm dependency left external. It goes to a folder of
 * its own per run under packages/server/dist/ (gitignored; two levels down, as dist/ is one, so the
 * native addon's relative path still finds native/build), and is removed when the run ends.
 */
import { mkdirSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";

const SERVER = fileURLToPath(new URL("../packages/server/", import.meta.url));

/** Builds the CLI into `outdir`: answers the path of its entry, `cli.js`. */
export async function buildCli(outdir: string): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: SERVER,
    entryPoints: { cli: "src/cli/index.ts", walletWorker: "src/crypto/walletWorker.ts" },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Our packages from their TypeScript, as the tests run them.
    conditions: ["source"],
    logLevel: "warning",
    plugins: [
      {
        name: "external-npm-packages",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@latchkey/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  return `${outdir}/cli.js`;
}

/** Removes the builds of runs that ended without their teardown (a watch stopped by a signal). */
function removeStaleBuilds(): void {
  let names: string[];
  try {
    names = readdirSync(`${SERVER}dist`);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^test-cli-(\d+)$/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0); // only asks whether that run is still going
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH")
        rmSync(`${SERVER}dist/${name}`, { recursive: true, force: true });
    }
  }
}

/** One build per run, however many projects name this setup (service, fallback): the first one's. */
const RUN_BUILD = Symbol.for("latchkey.testCliBuild");
type Shared = { [RUN_BUILD]?: { users: number; outdir: string } };

export default async function setup(project: TestProject): Promise<() => void> {
  const shared = globalThis as Shared;
  const outdir = `${SERVER}dist/test-cli-${process.pid}`;
  const run = shared[RUN_BUILD];
  if (run) run.users++;
  else {
    shared[RUN_BUILD] = { users: 1, outdir };
    removeStaleBuilds();
    // The test workers start after this, with this environment.
    process.env.LATCHKEY_CLI = await buildCli(outdir);
    // In watch mode, each rerun gets a build of the source as it is then.
    project.onTestsRerun(async () => {
      await buildCli(outdir);
    });
  }
  return () => {
    const current = shared[RUN_BUILD];
    if (current && --current.users > 0) return;
    delete shared[RUN_BUILD];
    rmSync(outdir, { recursive: true, force: true });
    // dist/ itself too, if this run made it and nothing else is in it.
    try {
      rmdirSync(`${SERVER}dist`);
    } catch {}
  };
}
