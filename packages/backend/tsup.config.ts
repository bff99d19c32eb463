import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

// A Node package: one bundle of its own code; @latchkey/protocol and viem stay dependencies.
export default defineConfig(packageBuild({ index: "src/index.ts" }));
