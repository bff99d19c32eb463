import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// What `npm run test:mutation` (stryker.config.mjs) runs against each mutant: the unit tests beside the
// server's code (no browser, chain or PostgreSQL), of which Stryker runs those that import the mutated file.
export default defineConfig({
  ...base,
  test: { ...base.test, include: ["packages/server/src/**/*.test.ts"], maxWorkers: 1, minWorkers: 1 },
});
