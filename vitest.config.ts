import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "e2e/**/*.test.ts",
      "scripts/**/*.test.ts",
    ],
    // Generous: a CI machine may be slower than this one, and a real hang still fails.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
