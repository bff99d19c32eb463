import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

export default defineConfig(
  packageBuild(
    {
      index: "src/index.ts",
      cli: "src/cli/index.ts",
      // @latchkey/server/dev: dev mode, the local sign-in providers (loaded by `serve --dev` and the tests).
      dev: "src/dev/index.ts",
      // Runs on worker threads, loaded by URL beside the chunk that starts it (crypto/walletPool.ts).
      walletWorker: "src/crypto/walletWorker.ts",
    },
    { platform: "node", target: "node20" },
  ),
);
