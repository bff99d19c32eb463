import type { OtpResponse, SignerConfigResponse, WhoamiResponse } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import { SignerApiError, SignerError } from "../errors";
import type { SignInWallet, SplitCustodyKeyHolder } from "../keyHolders/types";
import type { User } from "../session/types";
import type { SignerBase, WalletAccess } from "./types";

/**
 * Split custody's part of a session (docs/split-custody.md §3–4): the service's share key, the wallet
 * made in the key holder at the first sign-in, and whether this device holds the user's part.
 */

const configs = new WeakMap<SignerBase, Promise<SignerConfigResponse>>();

/** The app's signer config (custody, enforced confirmations), read once per signer. */
export function signerConfigOf(signer: SignerBase): Promise<SignerConfigResponse> {
  let config = configs.get(signer);
  if (!config) {
    config = signer.client.call(signerRoutes.signerConfig, {}).catch((error: unknown) => {
      configs.delete(signer);
      throw error;
    });
    configs.set(signer, config);
  }
  return config;
}

/** The app's custody mode and the service's share key (the signer config, read once per signer). */
export async function custodyConfig(signer: SignerBase): Promise<SignerConfigResponse["custody"]> {
  return (await signerConfigOf(signer)).custody ?? { mode: "service", shareKey: "" };
}

/** The key holder's custody, or SPLIT_CUSTODY_UNSUPPORTED_HOLDER. */
export function custodyOf(signer: SignerBase): SplitCustodyKeyHolder {
  const custody = signer.keyHolder.custody;
  if (!custody) throw new SignerError("SPLIT_CUSTODY_UNSUPPORTED_HOLDER");
  return custody;
}

/**
 * A split app's new user's wallet for the code's sign-in (docs/split-custody.md §3): made by the key
 * holder, both shares sealed to the share key for this sign-in, the user share pending in the holder.
 * Undefined when the holder cannot (the wallet is then made after the sign-in) or anything fails.
 */
export async function signInWallet(
  signer: SignerBase,
  binding: { organizationId: string; otpId: string; targetPublicKey: string },
): Promise<SignInWallet | undefined> {
  const custody = signer.keyHolder.custody;
  if (!custody?.prepareSignInWallet) return undefined;
  try {
    const { mode, shareKey } = await custodyConfig(signer);
    if (mode !== "split") return undefined;
    return await custody.prepareSignInWallet({ ...binding, shareKey });
  } catch {
    return undefined;
  }
}

/** The sign-in answered: the holder keeps the pending share when the service recorded that wallet. */
export async function keepSignInWallet(
  signer: SignerBase,
  organizationId: string,
  response: OtpResponse,
): Promise<void> {
  const address = response.status === "SUCCESS" ? (response.user?.address ?? "") : "";
  await signer.keyHolder.custody?.keepSignInWallet?.({ organizationId, address });
}

/** A refusal of the sign-in's wallet alone (the code is not spent): worth signing in without it. */
export function isSignInWalletRefusal(error: unknown): boolean {
  return error instanceof SignerApiError && SIGN_IN_WALLET_REFUSALS.has(error.code);
}
const SIGN_IN_WALLET_REFUSALS: ReadonlySet<string> = new Set([
  "USER_SHARE_INVALID",
  "WALLET_EXISTS",
  "WALLET_HELD_BY_ANOTHER_USER",
  "INVALID_REQUEST",
]);

/**
 * Right after a split user's whoami, before the session is CONNECTED: a split user without a wallet gets
 * one, made in the key holder (which keeps the user share) and recorded by the service
 * (create_split_wallet, whose stamp carries the user share); a split user whose wallet exists is
 * `ready` when this device holds its part, `restore_needed` otherwise; a split app's user whose wallet
 * the service still holds whole gets it split (splitWholeWallet). Answers whoami as it is now.
 */
export async function settleWallet(signer: SignerBase, who: WhoamiResponse): Promise<WhoamiResponse> {
  const { store, client } = signer;
  if (who.walletState === "whole" && who.walletId) return splitWholeWallet(signer, who, who.walletId);
  const custody = custodyOf(signer);
  const { shareKey } = await custodyConfig(signer);
  if (who.walletState === "none") {
    store.setState({ walletAccess: "creating", recovery: [] });
    const { serviceShare, accounts } = await custody.createSplitWallet({
      organizationId: who.orgId,
      shareKey,
    });
    await client.callStamped(signerRoutes.createSplitWallet, {
      organizationId: who.orgId,
      parameters: { serviceShare, accounts },
    });
    const made = await client.callStamped(signerRoutes.whoami, { organizationId: who.orgId });
    store.setState({ walletAccess: "ready", recovery: made.recovery ?? [] });
    return made;
  }
  const held = await custody.hasUserShare({ organizationId: who.orgId, shareKey });
  store.setState({ walletAccess: held ? "ready" : "restore_needed", recovery: who.recovery ?? [] });
  return who;
}

/**
 * A whole wallet moved to split custody (docs/split-custody.md §3.1): a pregenerated or imported user of
 * a split app at their first sign-in, or a user of an app that moved to split. The holder makes an
 * ephemeral key; begin_split_wallet answers the user share sealed to it (the service keeps its share
 * pending and the whole wallet still signs); the holder opens and keeps the share; complete_split_wallet,
 * whose stamp carries it, makes the wallet split and destroys the whole copy. A failure (a session that
 * is no fresh sign-in, the network) does not fail the sign-in: the wallet stays whole and working, the
 * session is a service-custody one, and the next sign-in begins again. (Had the completion reached the
 * service, the holder already keeps the share and attaches it to signatures.)
 */
async function splitWholeWallet(
  signer: SignerBase,
  who: WhoamiResponse,
  walletId: string,
): Promise<WhoamiResponse> {
  const { store, client } = signer;
  const organizationId = who.orgId;
  store.setState({ walletAccess: "creating", recovery: [] });
  try {
    const custody = custodyOf(signer);
    const { shareKey } = await custodyConfig(signer);
    const { targetPublicKey } = await custody.beginSplit({ organizationId, walletId, shareKey });
    const begun = await client.callStamped(signerRoutes.beginSplitWallet, {
      organizationId,
      parameters: { walletId, targetPublicKey },
    });
    await custody.acceptSplitShare({ organizationId, walletId, userShare: begun.userShare, shareKey });
    await client.callStamped(signerRoutes.completeSplitWallet, { organizationId, parameters: { walletId } });
  } catch {
    store.setState({ walletAccess: "service", recovery: [] });
    return { ...who, custody: "service", walletState: "ready" };
  }
  const split = await client.callStamped(signerRoutes.whoami, { organizationId });
  store.setState({ walletAccess: "ready", recovery: split.recovery ?? [] });
  return split;
}

/**
 * After a reload: whether this device holds the part of the stored user's split wallet (and, for holders
 * that need it, the share key before the first signature). A failure leaves the access unknown.
 */
export async function refreshWalletAccess(signer: SignerBase, user: User): Promise<void> {
  try {
    const { shareKey } = await custodyConfig(signer);
    const held = await custodyOf(signer).hasUserShare({ organizationId: user.orgId, shareKey });
    const access: WalletAccess = held ? "ready" : "restore_needed";
    signer.store.setState({ walletAccess: access });
    if (signer.store.getState().recovery === undefined) {
      const who = await signer.client.callStamped(signerRoutes.whoami, { organizationId: user.orgId });
      signer.store.setState({ recovery: who.recovery ?? [] });
    }
  } catch {
    // Unknown until the next sign-in; a signature still tells (USER_SHARE_REQUIRED).
  }
}
