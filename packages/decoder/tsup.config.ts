import { defineConfig } from "tsup";
import { modulesBuild } from "../../scripts/tsupBase";

// Module by module, as protocol and core: the modal will import it, and an app's bundler then splits it.
export default defineConfig(modulesBuild({ index: "src/index.ts" }));
