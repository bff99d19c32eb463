import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Our packages export `source` (their TypeScript) first: tests run the source, the tarballs ship dist.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["source", ...defaultServerConditions], externalConditions: ["source"] } },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "e2e/**/*.test.ts",
      "scripts/**/*.test.ts",
      "test-support/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    // Generous: a CI machine may be slower than this one, and a real hang still fails.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits up to 15 s (vitest's default, 1 s, fails a browser test whose page is slower under
    // load: CI saw RainbowKit's "connected" come later than that). A real miss still fails.
    expect: { poll: { timeout: 15_000 } },
    // The `latchkey` CLI, built once per run for the tests' `latchkey` processes (test-support/buildCli.ts).
    globalSetup: ["test-support/buildCli.ts"],
    // Forks, not threads: a command run in the test's own process (packages/server/test/helpers/latchkey.ts)
    // changes directory for its duration, which a worker thread cannot.
    pool: "forks",
    // Two files at a time on a 2-core machine (vitest's default there is one): most files wait on a
    // browser, a chain or a service as much as they compute. 12 min → 8 min for the whole suite here.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
