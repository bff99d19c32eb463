import { walletDiscovery } from "../externalWallets/discovery";
import type { SignerBase } from "../signer/types";
import { type GetWalletConnectorsReturnType, getWalletConnectors } from "./getWalletConnectors";

/** What `watchWalletConnectors` takes: called with the list whenever a wallet announces itself. */
export interface WatchWalletConnectorsParameters {
  onChange(connectors: GetWalletConnectorsReturnType): void;
}

/**
 * Calls `onChange` when a wallet announces itself after the first look (a wallet extension that loads
 * late). Answers the function that stops watching.
 *
 * @example
 * const stop = watchWalletConnectors(signer, { onChange: (wallets) => render(wallets) });
 */
export function watchWalletConnectors(
  signer: SignerBase,
  { onChange }: WatchWalletConnectorsParameters,
): () => void {
  const win = signer._internal.window as Parameters<typeof walletDiscovery>[0] | null;
  if (!win) return () => {};
  return walletDiscovery(win).subscribe(() => onChange(getWalletConnectors(signer)));
}
