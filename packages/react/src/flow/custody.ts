import type { Signer } from "@latchkey/core";
import type { AuthStep } from "./step";

/**
 * The split-custody step a completed sign-in goes to before the modal closes (docs/split-custody.md §4),
 * or null: `wallet_restore` on a device without its part of the wallet, `wallet_protect` while the
 * wallet has no recovery factor, and, when the user leaves `wallet_protect` unprotected, its `risk` view
 * once (what losing the device means) before the wallet is used.
 */
export function custodyStep(signer: Signer, current: AuthStep): AuthStep | null {
  const { user, walletAccess, recovery } = signer.getState();
  const unprotected = user?.custody === "split" && walletAccess === "ready" && !recovery?.length;
  if (current.type === "wallet_restore") return null;
  if (current.type === "wallet_protect")
    return unprotected && current.view !== "risk" ? { type: "wallet_protect", view: "risk" } : null;
  if (walletAccess === "restore_needed") return { type: "wallet_restore" };
  return unprotected ? { type: "wallet_protect", view: "choose" } : null;
}
