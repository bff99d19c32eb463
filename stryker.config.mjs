// Mutation testing of the code that guards money and keys (issue 45): `npm run test:mutation`, or one
// module with `npm run test:mutation -- --mutate packages/server/src/crypto/keyring.ts`. Not part of
// `npm test`: run it before landing a change to one of these modules. Scores: bench/results/mutation.json.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  // Only the unit tests of these modules (no browser, chain or PostgreSQL): see vitest.mutation.config.ts.
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  mutate: [
    "packages/server/src/keyManagement/policies/evaluatePolicy.ts",
    "packages/server/src/keyManagement/policies/callsOf.ts",
    "packages/server/src/keyManagement/policies/callArgs.ts",
    "packages/server/src/keyManagement/policies/ownAccounts.ts",
    "packages/server/src/keyManagement/policies/typedDataRequest.ts",
    "packages/server/src/keyManagement/policies/tokenMoves.ts",
    "packages/server/src/features/grants/grantPolicy.ts",
    "packages/server/src/crypto/keyring.ts",
    "packages/server/src/crypto/keyWrap/localKey.ts",
    "packages/server/src/users/sealWallet.ts",
    "packages/server/src/auth/stamps/verifyApiKeyStamp.ts",
    "packages/server/src/auth/stamps/verifyPasskeyStamp.ts",
    "packages/server/src/auth/stamps/p256Verify.ts",
    "packages/server/src/auth/stamps/freshness.ts",
    "packages/server/src/auth/stamps/replayLedger.ts",
    "packages/server/src/auth/stamps/operationBinding.ts",
    "packages/server/src/sessions/stepUp.ts",
    "packages/server/src/features/sponsorship/spending.ts",
  ],
  coverageAnalysis: "perTest",
  // Two cores shared with others: one mutant at a time.
  concurrency: 1,
  timeoutMS: 20_000,
  reporters: ["clear-text", "progress", "json", "html"],
  // STRYKER_REPORT: another file, for a second run beside the first (with --tempDirName .stryker-tmp-2).
  jsonReporter: { fileName: process.env.STRYKER_REPORT ?? "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: ".stryker-tmp",
  ignorePatterns: [
    ".stryker-tmp*",
    "/apps",
    "/e2e",
    "/consumer",
    "/bench",
    "**/dist",
    "coverage",
    "/reports",
  ],
  thresholds: { high: 90, low: 85, break: null },
};
