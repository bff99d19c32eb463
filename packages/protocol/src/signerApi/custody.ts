/**
 * Split custody's signer-API answers (docs/split-custody.md): making the wallet, and the recovery blobs
 * of the user's share. The requests are stamped key-management bodies (`stampedRequestBodySchema`).
 */
import type {
  BeginSplitWalletResult,
  CompleteSplitWalletResult,
  CreateSplitWalletResult,
  SetRecoveryShareResult,
} from "../keyManagement/activities";

/** `/v1/create-split-wallet`: the wallet made, its id and its addresses. */
export type CreateSplitWalletResponse = CreateSplitWalletResult;

/** `/v1/begin-split-wallet`: the user share of a whole wallet, sealed to the key holder's ephemeral key. */
export type BeginSplitWalletResponse = BeginSplitWalletResult;

/** `/v1/complete-split-wallet`: the wallet, now split; its addresses are unchanged. */
export type CompleteSplitWalletResponse = CompleteSplitWalletResult;

/** `/v1/set-recovery-share`: the blob stored (or replaced) for this wallet and kind. */
export type SetRecoveryShareResponse = SetRecoveryShareResult;

/** One stored recovery blob (`RecoveryBlob` of `@latchkey/protocol/custody`). */
export interface RecoveryShareRecord {
  walletId: string;
  kind: "passkey" | "code";
  /** The passkey whose PRF output encrypts it (`kind: "passkey"`). */
  credentialId?: string;
  blob: { v: 1; salt: string; iv: string; ciphertext: string };
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The wallet's addresses, oldest account first: a new device keeps an imported wallet's share by them. */
  addresses?: string[];
}

/** `/v1/get-recovery-shares`: the user's recovery blobs, newest first. */
export interface GetRecoverySharesResponse {
  recoveryShares: RecoveryShareRecord[];
}
