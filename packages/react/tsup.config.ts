import { defineConfig } from "tsup";
import { modulesBuild } from "../../scripts/tsupBase";

export default defineConfig(modulesBuild({ index: "src/index.ts", locales: "src/texts/locales.ts" }));
