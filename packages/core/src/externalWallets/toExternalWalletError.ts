import type { ExternalWalletErrorCode } from "../errors/codes";
import { ExternalWalletError } from "../errors/externalWallet";

/** wagmi's connector errors by name, and the spec's code for each (§8 "wallet"). */
const BY_NAME: Record<string, ExternalWalletErrorCode> = {
  ChainNotConfiguredError: "CHAIN_NOT_CONFIGURED",
  ConnectorAlreadyConnectedError: "CONNECTOR_ALREADY_CONNECTED",
  ConnectorNotConnectedError: "CONNECTOR_NOT_CONNECTED",
  ConnectorNotFoundError: "PROVIDER_NOT_FOUND",
  ProviderNotFoundError: "PROVIDER_NOT_FOUND",
  SwitchChainNotSupportedError: "SWITCH_CHAIN_NOT_SUPPORTED",
  ConnectorChainMismatchError: "CONNECTOR_CHAIN_MISMATCH",
  // viem: the wallet is on another chain than the one a transaction is for.
  ChainMismatchError: "CONNECTOR_CHAIN_MISMATCH",
  ConnectorUnavailableReconnectingError: "CONNECTOR_NOT_CONNECTED",
};

/** EIP-1193's "Unsupported Method": the wallet does not implement what it was asked. */
const UNSUPPORTED_METHOD = 4200;

/**
 * Any failure of a wallet call as an `ExternalWalletError`: the user's refusal (EIP-1193 4001, anywhere
 * in the cause chain) is USER_REJECTED, wagmi's connector errors keep their meaning, a chain switch the
 * wallet does not implement (4200 under wagmi's SwitchChainError) is SWITCH_CHAIN_NOT_SUPPORTED with the
 * wallet's words, anything else is a failed connection with the wallet's own words as details.
 */
export function toExternalWalletError(error: unknown): ExternalWalletError {
  if (error instanceof ExternalWalletError) return error;
  const details =
    (error as { shortMessage?: string; message?: string })?.shortMessage ?? (error as Error)?.message;
  let switching = false;
  for (let e = error, depth = 0; e && depth < 8; depth++) {
    if (e instanceof ExternalWalletError) return e;
    const { code, name, message } = e as { code?: unknown; name?: string; message?: string };
    // 5000: WalletConnect's "User rejected." (its SDK error), as a browser dapp receives it.
    if (code === 4001 || code === 5000 || name === "UserRejectedRequestError")
      return new ExternalWalletError("USER_REJECTED", { cause: error });
    if (name === "SwitchChainError") switching = true;
    else if (switching && code === UNSUPPORTED_METHOD)
      return new ExternalWalletError("SWITCH_CHAIN_NOT_SUPPORTED", {
        cause: error,
        ...(message ? { details: message } : {}),
      });
    // wagmi's own words only repeat the code's message.
    if (name === "SwitchChainNotSupportedError")
      return new ExternalWalletError("SWITCH_CHAIN_NOT_SUPPORTED", { cause: error });
    const mapped = name ? BY_NAME[name] : undefined;
    if (mapped) return new ExternalWalletError(mapped, { cause: error, ...(details ? { details } : {}) });
    e = (e as { cause?: unknown }).cause;
  }
  return new ExternalWalletError("WALLET_CONNECTION_FAILED", {
    cause: error,
    ...(details ? { details } : {}),
  });
}
