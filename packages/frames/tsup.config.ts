import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

export default defineConfig([
  packageBuild({ index: "src/index.ts" }),
  // The frames' page scripts (auth, export, import), each one self-contained file the service inlines (its hash is the page's
  // only script-src): everything bundled, minified, no module syntax.
  {
    entry: { auth: "src/auth.ts", export: "src/export.ts", import: "src/import.ts" },
    format: ["iife"],
    platform: "browser",
    target: "es2022",
    minify: true,
    noExternal: [/.*/],
    outExtension: () => ({ js: ".js" }),
    clean: false,
  },
]);
