import type { UiConfig } from "../types";

// Development builds only: the provider calls this behind `process.env.NODE_ENV !== "production"`.

/** What the provider says, in development, about an `external_wallets` section without external wallets. */
export const EXTERNAL_WALLETS_MISSING_WARNING =
  '[latchkey] The modal has an "external_wallets" section, but config.externalWallets is not set, so no wallet can connect: pass externalWallets: externalWallets() of @latchkey/core/external-wallets (npm i @wagmi/core), with walletConnect: walletConnect({ projectId }) of @latchkey/core/walletconnect for WalletConnect.';

/**
 * The warning for a config whose modal offers external wallets that were never configured (they need
 * `externalWallets()` of `@latchkey/core/external-wallets`: the main entry does not load wagmi itself), or
 * undefined.
 */
export function externalWalletsWarning(config: {
  externalWallets?: unknown;
  ui?: UiConfig;
}): string | undefined {
  const offered = config.ui?.sections?.some((row) => row.some((m) => m.type === "external_wallets"));
  return offered && !config.externalWallets ? EXTERNAL_WALLETS_MISSING_WARNING : undefined;
}
