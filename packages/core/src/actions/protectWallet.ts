import { signerRoutes } from "@latchkey/protocol/wire";
import type { PasskeyCancelledError, PasskeyError, SignerApiError } from "../errors";
import { SignerError } from "../errors";
import { custodyOf } from "../signer/custody";
import { requireUser } from "../signer/guards";
import type { RecoveryFactor, SignerBase } from "../signer/types";

/** What `protectWallet` takes: a passkey (its PRF output encrypts the user's part) or a recovery code. */
export interface ProtectWalletParameters {
  method: RecoveryFactor;
  /** Aborts the passkey prompt. */
  signal?: AbortSignal;
}
/** The factor stored; for a code, the code itself: show it once, the service cannot show it again. */
export interface ProtectWalletReturnType {
  method: RecoveryFactor;
  /** The recovery code (32 characters in groups of 4), `method: "code"` only. */
  code?: string;
  /** The passkey that protects the wallet, `method: "passkey"` only. */
  credentialId?: string;
}
/** The errors `protectWallet` may throw (discriminate on `name` and `code`). */
export type ProtectWalletErrorType =
  | SignerError<"NOT_AUTHENTICATED" | "NO_SPLIT_WALLET" | "USER_SHARE_REQUIRED" | "PASSKEY_PRF_UNSUPPORTED">
  | PasskeyCancelledError
  | PasskeyError
  | SignerApiError;

/** The PRF input of a wallet's recovery passkey: sha256("latchkey_recovery_v1:" + walletId) (recoveryPrfSalt). */
export async function recoveryPrfSalt(walletId: string): Promise<Uint8Array<ArrayBuffer>> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`latchkey_recovery_v1:${walletId}`),
  );
  return new Uint8Array(digest);
}

/**
 * Keeps a copy of this device's part of a split wallet with the service, encrypted under a key only the
 * user can produce (docs/split-custody.md §4): a passkey's PRF output (a new passkey made for it, or the
 * passkey the user signed in with when it answers the PRF) or a new recovery code, returned once. On a
 * new device, `restoreWallet` opens it. The service cannot. The wallets the user imported into a split
 * app are protected by the same factor, each with its own blob (docs/split-custody.md §5).
 *
 * @example
 * const { code } = await protectWallet(signer, { method: "code" }); // show it once
 */
export async function protectWallet(
  signer: SignerBase,
  { method, signal }: ProtectWalletParameters,
): Promise<ProtectWalletReturnType> {
  const user = await requireUser(signer);
  if (user.custody !== "split" || !user.walletId) throw new SignerError("NO_SPLIT_WALLET");
  if (signer.store.getState().walletAccess === "restore_needed") throw new SignerError("USER_SHARE_REQUIRED");
  const custody = custodyOf(signer);
  const { walletId, orgId: organizationId } = user;
  let result: ProtectWalletReturnType;
  // The imported wallets whose shares this device keeps (docs/split-custody.md §5): one factor covers all.
  const further = (await custody.walletShares?.({ organizationId })) ?? [];
  if (method === "code") {
    const { blob, code } = await custody.protectShare({ organizationId, walletId });
    await signer.client.callStamped(signerRoutes.setRecoveryShare, {
      organizationId,
      parameters: { walletId, kind: "code", blob },
    });
    for (const wallet of further) {
      const more = await custody.protectShare({
        organizationId,
        walletId: wallet.walletId,
        code: code ?? "",
      });
      await signer.client.callStamped(signerRoutes.setRecoveryShare, {
        organizationId,
        parameters: { walletId: wallet.walletId, kind: "code", blob: more.blob },
      });
    }
    result = { method, ...(code ? { code } : {}) };
  } else {
    const passkeys = signer._internal.authMethods.passkey;
    const ceremony = passkeys.startCeremony(signer, signal);
    try {
      const [prf, salt] = await Promise.all([
        import("../authMethods/passkey/prf"),
        recoveryPrfSalt(walletId),
      ]);
      const base = { credentials: ceremony.credentials, rpId: ceremony.rpId, salt, signal: ceremony.signal };
      // The passkey the user signed in with, when it answers the PRF; else a new one for the wallet.
      const existing = user.credentialId
        ? await prf.assertWithPrf({ ...base, credentialIds: [user.credentialId] }).catch(() => undefined)
        : undefined;
      let made = existing;
      if (!made) {
        const created = await prf.createWithPrf({
          ...base,
          rpName: ceremony.rpName,
          userName: passkeys.userName(signer, user.email),
        });
        // The passkey becomes one of the user's (the service stores recovery for those only): it signs
        // in too.
        try {
          await signer.client.submit("create_authenticators", {
            type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
            organizationId,
            parameters: {
              userId: user.userId,
              authenticators: [
                {
                  authenticatorName: `passkey-${signer.sessionManager.clock.now()}`,
                  ...created.registration,
                },
              ],
            },
          });
        } catch (error) {
          created.prfOutput.fill(0);
          throw error;
        }
        made = created;
      }
      const { credentialId, prfOutput } = made;
      try {
        // One PRF output (the first wallet's input) for every wallet: each blob's key is still its own
        // (HKDF's info names the wallet).
        for (const id of [walletId, ...further.map((w) => w.walletId)]) {
          const { blob } = await custody.protectShare({ organizationId, walletId: id, prfOutput });
          await signer.client.callStamped(signerRoutes.setRecoveryShare, {
            organizationId,
            parameters: { walletId: id, kind: "passkey", credentialId, blob },
          });
        }
      } finally {
        prfOutput.fill(0);
      }
      result = { method, credentialId };
    } finally {
      ceremony.done();
    }
  }
  const recovery = signer.store.getState().recovery ?? [];
  if (!recovery.includes(method)) signer.store.setState({ recovery: [...recovery, method] });
  return result;
}
