import { defineConfig } from "vitest/config";

// The consumer tests: our packages as a developer gets them (npm pack → install in a fresh folder outside
// the repository), in a Vite app, a Next.js app, a React 18 app and a plain Node script. `npm run
// test:consumer`; CI runs it after `npm test`. They install from the npm registry, so they take minutes.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["*.test.ts"],
    globalSetup: ["./globalSetup.ts"],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    // Two apps at a time: an install waits on the registry and the disk while the other builds.
    maxWorkers: 2,
    minWorkers: 1,
    pool: "forks",
  },
});
