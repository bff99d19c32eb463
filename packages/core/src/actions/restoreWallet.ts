import { signerRoutes } from "@latchkey/protocol/wire";
import type { PasskeyCancelledError, PasskeyError, SignerApiError } from "../errors";
import { LatchkeyError, SignerError } from "../errors";
import { custodyConfig, custodyOf } from "../signer/custody";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import { recoveryPrfSalt } from "./protectWallet";

/** What `restoreWallet` takes: the recovery code the user kept, or their passkey. */
export type RestoreWalletParameters =
  | { recoveryCode: string; passkey?: undefined }
  | { passkey: true; recoveryCode?: undefined; signal?: AbortSignal };
/**
 * This device holds its part again (`walletAccess` is `ready`): answers the wallet's id, and the imported
 * wallets whose parts the same factor restored.
 */
export type RestoreWalletReturnType = { walletId: string; importedWalletIds: string[] };
/** The errors `restoreWallet` may throw (discriminate on `name` and `code`). */
export type RestoreWalletErrorType =
  | SignerError<
      | "NOT_AUTHENTICATED"
      | "NO_SPLIT_WALLET"
      | "RECOVERY_FAILED"
      | "RECOVERY_NOT_FOUND"
      | "PASSKEY_PRF_UNSUPPORTED"
    >
  | PasskeyCancelledError
  | PasskeyError
  | SignerApiError;

const isRecoveryFailure = (error: unknown) =>
  (error instanceof Error && error.name === "RecoveryError") ||
  (error instanceof LatchkeyError && (error.code as string) === "RECOVERY_FAILED");

/**
 * Puts this device's part of a split wallet back (docs/split-custody.md §4), on a new device after an
 * email or social sign-in: fetches the recovery copy the service keeps and opens it here, in the key
 * holder, with the recovery code or the passkey's PRF output. A wrong code or another passkey:
 * RECOVERY_FAILED (nothing changes; try again). The wallets the user imported into the split app are
 * restored with the same factor (docs/split-custody.md §5).
 *
 * @example
 * await restoreWallet(signer, { recoveryCode: "7K2M-…" });
 * await restoreWallet(signer, { passkey: true });
 */
export async function restoreWallet(
  signer: SignerBase,
  params: RestoreWalletParameters,
): Promise<RestoreWalletReturnType> {
  const user = await requireUser(signer);
  if (user.custody !== "split" || !user.walletId) throw new SignerError("NO_SPLIT_WALLET");
  const custody = custodyOf(signer);
  const { walletId, orgId: organizationId } = user;
  const [{ recoveryShares }, { shareKey }] = await Promise.all([
    signer.client.callStamped(signerRoutes.getRecoveryShares, { organizationId }),
    custodyConfig(signer),
  ]);
  const kind = params.passkey ? "passkey" : "code";
  const records = recoveryShares.filter((r) => r.walletId === walletId && r.kind === kind);
  if (records.length === 0) throw new SignerError("RECOVERY_NOT_FOUND");
  // The imported wallets' blobs of this kind (newest first: one per wallet and credential).
  const further = recoveryShares.filter((r) => r.walletId !== walletId && r.kind === kind);
  const importedWalletIds: string[] = [];
  /** Restores every imported wallet's share the same factor protects; one that does not open is skipped. */
  const restoreFurther = async (
    input: { prfOutput: Uint8Array; credentialId: string } | { code: string },
  ) => {
    for (const r of further) {
      if (importedWalletIds.includes(r.walletId)) continue;
      if ("credentialId" in input && r.credentialId !== input.credentialId) continue;
      const factor = "code" in input ? { code: input.code } : { prfOutput: input.prfOutput };
      try {
        await custody.restoreShare({
          organizationId,
          walletId: r.walletId,
          blob: r.blob,
          shareKey,
          addresses: r.addresses ?? [],
          ...factor,
        });
        importedWalletIds.push(r.walletId);
      } catch (error) {
        if (!isRecoveryFailure(error)) throw error;
      }
    }
  };
  try {
    if (params.passkey) {
      const ceremony = signer._internal.authMethods.passkey.startCeremony(signer, params.signal);
      try {
        const prf = await import("../authMethods/passkey/prf");
        const { credentialId, prfOutput } = await prf.assertWithPrf({
          credentials: ceremony.credentials,
          rpId: ceremony.rpId,
          salt: await recoveryPrfSalt(walletId),
          credentialIds: records.flatMap((r) => (r.credentialId ? [r.credentialId] : [])),
          signal: ceremony.signal,
        });
        const record = records.find((r) => r.credentialId === credentialId);
        if (!record) throw new SignerError("RECOVERY_FAILED");
        try {
          await custody.restoreShare({ organizationId, walletId, blob: record.blob, shareKey, prfOutput });
          await restoreFurther({ prfOutput, credentialId });
        } finally {
          prfOutput.fill(0);
        }
      } finally {
        ceremony.done();
      }
    } else {
      const [record] = records;
      if (!record) throw new SignerError("RECOVERY_NOT_FOUND");
      await custody.restoreShare({
        organizationId,
        walletId,
        blob: record.blob,
        shareKey,
        code: params.recoveryCode ?? "",
      });
      await restoreFurther({ code: params.recoveryCode ?? "" });
    }
  } catch (error) {
    throw isRecoveryFailure(error) ? new SignerError("RECOVERY_FAILED", { cause: error }) : error;
  }
  signer.store.setState({ walletAccess: "ready" });
  return { walletId, importedWalletIds };
}
