import { defineConfig } from "tsup";

// The console is one page the service serves at /admin (@latchkey/server, features/admin/console): its
// script and stylesheet, everything bundled into two files (React, uPlot, the protocol's stamps), minified.
// The tarball ships only these; in a checkout the service bundles src/ itself with the same options.
export default defineConfig({
  entry: { console: "src/main.tsx" },
  format: ["iife"],
  platform: "browser",
  target: "es2022",
  minify: true,
  noExternal: [/.*/],
  outExtension: () => ({ js: ".js" }),
  esbuildOptions(options) {
    options.jsx = "automatic";
    options.conditions = ["source"];
    options.legalComments = "none";
  },
  env: { NODE_ENV: "production" },
  clean: true,
});
