import { disconnect } from "@wagmi/core";
import { saveSiwe } from "../storage";
import type { WalletsConfig } from "../types";

/** Forgets the SIWE proof, disconnects the wallet (a wallet that fails to answer is dropped all the same). */
export async function disconnectExternalWallet(config: WalletsConfig): Promise<void> {
  const { wagmi } = config;
  if (!wagmi) return;
  saveSiwe(undefined);
  await disconnect(wagmi).catch(() => {});
  config.setWallet({ status: "disconnected" });
}
