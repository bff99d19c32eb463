import { LatchkeyError, messageWithDetails } from "./base";
import { type ExternalWalletErrorCode, ExternalWalletErrorMessages } from "./codes";

/**
 * An external-wallet error (spec §8 "Wallet", "WalletConnect", "wallet"): a failed or refused connection,
 * a timeout, WalletConnect without its configuration, a wallet that lacks the network, and the connector
 * errors (chain not configured, already or not connected, no provider, no chains, no programmatic chain
 * switching, a chain mismatch). `USER_REJECTED` is the wallet's EIP-1193 code 4001.
 */
export class ExternalWalletError<
  C extends ExternalWalletErrorCode = ExternalWalletErrorCode,
> extends LatchkeyError<C> {
  override name = "ExternalWalletError" as const;
  /** What the wallet, the connector or the service said, as they said it. */
  readonly details: string | undefined;
  constructor(code: C, options: { cause?: unknown; details?: string } = {}) {
    const base = ExternalWalletErrorMessages[code];
    super(code, messageWithDetails(base, options.details), { cause: options.cause });
    this.details = options.details;
  }
}

/**
 * Whether the user refused in their wallet (EIP-1193 code 4001, WalletConnect's 5000, or an `ExternalWalletError` USER_REJECTED).
 *
 * @example
 * try { await connectExternalWallet(signer, { connectorId }) } catch (e) { if (isUserRejected(e)) retry() }
 */
export function isUserRejected(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 8; depth++) {
    if (e instanceof LatchkeyError && e.code === "USER_REJECTED") return true;
    const code = typeof e === "object" ? (e as { code?: unknown }).code : undefined;
    if (code === 4001 || code === 5000) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
