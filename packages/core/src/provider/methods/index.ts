import type { MethodHandler } from "../types";
import { ethAccounts, ethCoinbase, ethRequestAccounts } from "./accounts";
import { ethChainId, netVersion, walletAddEthereumChain, walletSwitchEthereumChain } from "./chain";
import { walletGrantPermissions, walletRevokePermissions } from "./permissions";
import { ethSendTransaction } from "./sendTransaction";
import { ethSignTypedDataV4, personalSign } from "./sign";
import { walletGetCallsStatus, walletGetCapabilities, walletSendCalls } from "./walletCalls";

/** The methods the wallet answers itself; the rest are forwarded (chain reads) or refused (4200). */
export const walletMethods: Readonly<Record<string, MethodHandler>> = {
  eth_accounts: ethAccounts,
  eth_requestAccounts: ethRequestAccounts,
  eth_coinbase: ethCoinbase,
  eth_chainId: ethChainId,
  net_version: netVersion,
  wallet_switchEthereumChain: walletSwitchEthereumChain,
  wallet_addEthereumChain: walletAddEthereumChain,
  personal_sign: personalSign,
  eth_signTypedData_v4: ethSignTypedDataV4,
  eth_sendTransaction: ethSendTransaction,
  // viem retries a refused eth_sendTransaction as wallet_sendTransaction: the same method.
  wallet_sendTransaction: ethSendTransaction,
  wallet_sendCalls: walletSendCalls,
  wallet_getCallsStatus: walletGetCallsStatus,
  wallet_getCapabilities: walletGetCapabilities,
  wallet_grantPermissions: walletGrantPermissions,
  wallet_revokePermissions: walletRevokePermissions,
};

/** ERC-4337 bundler methods: forwarded to the current chain's bundler. */
export const bundlerMethods: ReadonlySet<string> = new Set([
  "eth_sendUserOperation",
  "eth_estimateUserOperationGas",
  "eth_getUserOperationByHash",
  "eth_getUserOperationReceipt",
  "eth_supportedEntryPoints",
]);

/**
 * Methods that sign, decrypt or act as a wallet and are not in {@link walletMethods}: 4200, never
 * forwarded to a node (which could hold keys of its own, as a dev node does).
 */
export function isRefused(method: string): boolean {
  return (
    method.startsWith("wallet_") ||
    method.startsWith("personal_") ||
    method.startsWith("eth_sign") ||
    method === "eth_sendTransaction" ||
    method === "eth_decrypt" ||
    method === "eth_getEncryptionPublicKey" ||
    method.startsWith("eth_subscribe") ||
    method.startsWith("eth_unsubscribe")
  );
}
