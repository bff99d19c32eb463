import { defineConfig } from "tsup";
import { modulesBuild } from "../../scripts/tsupBase";

export default defineConfig(
  modulesBuild({
    index: "src/index.ts",
    wagmi: "src/wagmi.ts",
    rainbowkit: "src/rainbowkit.ts",
    "externalWallets/index": "src/externalWallets/index.ts",
    "externalWallets/walletConnect/index": "src/externalWallets/walletConnect/index.ts",
    "solana/index": "src/solana/index.ts",
  }),
);
