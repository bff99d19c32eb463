import { getAccount, reconnect } from "@wagmi/core";
import { readSiwe, saveSiwe } from "../storage";
import type { WalletsConfig } from "../types";

/**
 * Reconnects the wallet wagmi stored (on load: restore.ts), then keeps the stored SIWE proof when it is
 * for the same address and unexpired, and forgets it otherwise. Never throws: a wallet that does not
 * answer stays disconnected.
 */
export async function reconnectExternalWallet(config: WalletsConfig): Promise<void> {
  const { wagmi } = config;
  if (!wagmi) return;
  await reconnect(wagmi).catch(() => []);
  const account = getAccount(wagmi);
  if (account.status !== "connected" || !account.address) return;
  const stored = readSiwe();
  if (stored && stored.address === account.address && Date.parse(stored.expiresAt) > Date.now())
    config.patchWallet({ siwe: stored });
  else if (stored) saveSiwe(undefined);
}
