import { defaultClientConditions, defaultServerConditions } from "vite";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

// Three projects (as viem's test/vitest.config.ts): `unit` (the tests beside the source that start no
// service, no process that matters and no browser: one thread per core, modules shared between files),
// `service` (the service, the CLI, chains, PostgreSQL) and `browser` (Chromium). Each takes its files by
// glob, so a new file lands in its project by where it is: packages/*/src/**/x.test.ts in unit,
// packages/server/test/x.test.ts in service, e2e/x.test.ts in browser. `npm run test:unit` runs the first
// alone (the inner loop: seconds).

/** What every project shares: how our packages resolve, and the timeouts. */
export const shared = {
  // Our packages export `source` (their TypeScript) first: tests run the source, the tarballs ship dist.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["source", ...defaultServerConditions], externalConditions: ["source"] } },
} satisfies TestProjectInlineConfiguration;
export const sharedTest = {
  // Generous: a CI machine may be slower than this one, and a real hang still fails.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // expect.poll waits up to 15 s (vitest's default, 1 s, fails a browser test whose page is slower under
  // load: CI saw RainbowKit's "connected" come later than that). A real miss still fails.
  expect: { poll: { timeout: 15_000 } },
} satisfies TestProjectInlineConfiguration["test"];

/** The browser tests: each drives Chromium (test-support/chromium.ts). */
const BROWSER = [
  "e2e/**/*.test.ts",
  "packages/core/test/browser*.test.ts",
  "test-support/wallets/*{Browser,injected}*.test.ts",
];
/**
 * Tests beside the source that start a server or a build, or set process.env: with the service tests
 * (own process each), not in the unit project's shared threads.
 */
export const SRC_WITH_SERVICES = [
  "packages/server/src/db/index.test.ts", // PostgreSQL
  "packages/server/src/mail/smtp.test.ts", // SMTP servers
  "packages/react/src/components/ServiceUnavailable.test.ts", // sets NODE_ENV, Vite builds
];

/**
 * `npm run test:fallback` as a project of the same run: the tests that sign, derive wallets and report the
 * crypto paths, again with both native addons turned off, as on a machine where they cannot build (no
 * compiler, install scripts not allowed, an unsupported platform). Signatures then come from
 * @noble/curves and BIP-39 seeds from node:crypto; the tests check the same signatures, on-chain user
 * operations, exports and the start-up log and /healthz naming the fallbacks. Each file in a process of
 * its own (the addons are chosen when the crypto modules load).
 */
const FALLBACK_ENV = { LATCHKEY_SECP256K1: "noble", LATCHKEY_PBKDF2: "node" };
/**
 * Which of the fallback files' tests run again there (their full names: describe and test). Not the
 * PostgreSQL legs of the scenario files (export-wallet, wallet-reserve): the crypto is the same on both
 * databases, and their SQL runs on PostgreSQL in the service project. Of the CLI's tests, only the start-up
 * log names the crypto paths (the others start processes that would only repeat the service project's run,
 * at a process start each). One project, not two: the forks pool runs projects one after another, each
 * ending on its last file with a core idle.
 */
export const FALLBACK_TESTS = "^(?!.*postgres)(?!latchkey CLI (?!serve --dev starts on SQLite))";
// A project's own testNamePattern: vitest applies it, its ProjectConfig type leaves it out.
const fallbackTests = { testNamePattern: FALLBACK_TESTS };

export default defineConfig({
  test: {
    projects: [
      {
        ...shared,
        test: {
          ...sharedTest,
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "packages/protocol/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SRC_WITH_SERVICES],
          // Pure tests: threads, and one module graph per thread for all its files (module collection was
          // a third of a small file's time; no file here changes a global it does not restore).
          pool: "threads",
          isolate: false,
          // Before the others, on both cores, not beside them (each pool takes two workers; this project is
          // all CPU, and a minute long).
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...shared,
        test: {
          ...sharedTest,
          name: "service",
          include: [
            ...SRC_WITH_SERVICES,
            "packages/*/test/**/*.test.ts",
            "scripts/**/*.test.ts",
            "test-support/**/*.test.ts",
            "bench/**/*.test.ts",
          ],
          exclude: [...configDefaults.exclude, ...BROWSER, "packages/protocol/test/**"],
          // The `latchkey` CLI, built once per run for the tests' `latchkey` processes (test-support/buildCli.ts),
          // the name of the run's migrated PostgreSQL template (test-support/pgTemplate.ts) and the run's one
          // local chain stack (test-support/chain/shared.ts).
          globalSetup: [
            "test-support/buildCli.ts",
            "test-support/pgTemplate.ts",
            "test-support/chain/shared.ts",
          ],
          // Forks, not threads: a command run in the test's own process (packages/server/test/helpers/latchkey.ts)
          // changes directory for its duration, which a worker thread cannot. One module graph per process
          // for all its files, as in `unit`: loading the service's modules was a third of a small file's
          // CPU and two thirds of its wall on this machine. Every file starts its own service, database and
          // servers and closes them; none changes a global it does not restore (the in-process CLI puts
          // back the directory and the environment).
          pool: "forks",
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        ...shared,
        test: {
          ...sharedTest,
          name: "browser",
          include: BROWSER,
          // The e2e pages, built once per run on first use (e2e/helpers/pageServer.ts), and the run's one local
          // chain stack, shared with the service project's files (test-support/chain/shared.ts).
          globalSetup: ["e2e/helpers/pageServer.ts", "test-support/chain/shared.ts"],
          // Threads, not forks: beside the service project, not after it. Vitest 3.2 runs the projects that
          // share a pool one after another (its forks pool awaits a project's last file, recycles its
          // workers, then starts the next project), but different pools of one group at the same time. These
          // files mostly wait on Chromium, the service and the spec's timers, so on their own they left half
          // the machine idle for 9.5 min while the service files waited their turn. Nothing here needs a
          // process of its own: no file changes directory, and a thread's process.env is its own copy.
          pool: "threads",
          // One module graph per thread for all its files, as in `service` (each file loaded the service,
          // playwright and viem afresh: a few seconds of CPU per file), and one Chromium per thread
          // (test-support/chromium.ts sharedChromium(), on the thread's globalThis): every file still starts
          // its own service, page server and browser contexts and closes them.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        ...shared,
        test: {
          ...sharedTest,
          name: "fallback",
          include: [
            "packages/server/src/crypto/**/*.test.ts",
            "packages/server/test/export-wallet.test.ts",
            "packages/server/test/wallet-reserve.test.ts",
            "packages/server/test/cli.test.ts",
            "packages/core/test/node-signing.test.ts",
            "packages/core/test/node-smart-account.test.ts",
          ],
          env: FALLBACK_ENV,
          ...fallbackTests,
          // Each file loads the crypto modules afresh (the pool's processes are reused: see poolOptions below).
          isolate: true,
          globalSetup: [
            "test-support/buildCli.ts",
            "test-support/pgTemplate.ts",
            "test-support/chain/shared.ts",
          ],
          pool: "forks",
          sequence: { groupOrder: 1 },
        },
      },
    ],
    // Two files at a time on a 2-core machine (vitest's default there is one): most files wait on a
    // browser, a chain or a service as much as they compute. 12 min → 8 min for the whole suite here.
    maxWorkers: 2,
    minWorkers: 1,
    // The pools reuse their processes (threads) between files: without this, each file got a fresh one
    // whatever its project's `isolate` said. A project with `isolate: true` still loads each file's
    // modules afresh; vitest keeps projects apart (a project's files never share a process with another's).
    // Two threads, as two forks: with a third (maxThreads: 3, or maxWorkers: 3 and maxForks: 2) every run of
    // `unit` then `browser` ended at the switch, tinypool rejecting "Terminating worker thread" as it
    // recycled the unit project's threads.
    poolOptions: { threads: { isolate: false }, forks: { isolate: false } },
  },
});
