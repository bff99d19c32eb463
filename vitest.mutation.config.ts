import { configDefaults, defineConfig } from "vitest/config";
import { SRC_WITH_SERVICES, shared, sharedTest } from "./vitest.config";

// What `npm run test:mutation` (stryker.config.mjs) runs against each mutant: the unit tests beside the
// server's and split custody's code (no browser, chain or PostgreSQL), of which Stryker runs those that
// import the mutated file. One project, not vitest.config.ts's projects (whose globs would win).
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    include: ["packages/server/src/**/*.test.ts", "packages/protocol/src/custody/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...SRC_WITH_SERVICES],
    maxWorkers: 1,
    minWorkers: 1,
  },
});
