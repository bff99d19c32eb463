import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

export default defineConfig(packageBuild({ index: "src/index.ts", wagmi: "src/wagmi.ts" }));
