import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

export default defineConfig(({ command }) => ({
  plugins: [react()],
  // In this repository the demo runs our packages' TypeScript (their `source` export), no build needed.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  server: { port: 5173, strictPort: true },
  // WalletConnect reads its test switch from `process.env` at run time (src/demoWallets.ts sets it for a
  // local relay); a build would otherwise replace `process.env` by `{}` in the bundle. Builds only: the
  // dev server leaves `process.env` alone, and it evaluates every define on the page's first load, when
  // `globalThis.process` does not exist yet (the page would not start).
  define: command === "build" ? { "process.env.IS_VITEST": "globalThis.process.env.IS_VITEST" } : {},
}));
