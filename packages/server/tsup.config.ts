import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

export default defineConfig(
  packageBuild(
    {
      index: "src/index.ts",
      cli: "src/cli.ts",
      // Runs on worker threads, loaded by URL beside the chunk that starts it (crypto/walletPool.ts).
      walletWorker: "src/crypto/walletWorker.ts",
    },
    { platform: "node", target: "node20" },
  ),
);
