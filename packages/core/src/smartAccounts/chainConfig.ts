import { SmartAccountError } from "../errors/smartAccount";
import type { SignerBase } from "../signer/types";
import type { SmartAccountChainConfig } from "../types/smartAccounts";

/**
 * The configured chain `chainId` names, or the first configured chain. Throws the spec's "missing
 * client" when no chain is configured, and 'Chain not configured' for an unknown id.
 */
export function chainConfigFor(signer: SignerBase, chainId?: number): SmartAccountChainConfig {
  const chains = signer._internal.options.chains ?? [];
  if (chains.length === 0) throw new SmartAccountError("SMART_ACCOUNT_CLIENT_MISSING");
  const config = chainId === undefined ? chains[0] : chains.find((c) => c.chain.id === chainId);
  if (!config) throw new SmartAccountError("CHAIN_NOT_CONFIGURED", { details: `chain id ${chainId}` });
  return config;
}
