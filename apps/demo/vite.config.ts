import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  // In this repository the demo runs our packages' TypeScript (their `source` export), no build needed.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  server: { port: 5173, strictPort: true },
});
