import type { ExportFrameShown, ExportFrameTexts } from "@latchkey/protocol/frame";
import {
  ActivityError,
  type LatchkeyError,
  type PasskeyError,
  type SignerApiError,
  type SignerError,
} from "../errors";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";
import { openServiceFrame } from "./serviceFrame";

/** The export frame's element id unless `iframeId` says otherwise (spec §9: a fixed id). */
export const DEFAULT_EXPORT_IFRAME_ID = "latchkey-export-iframe";

export { type StepUpMethod, stepUpMethodsOf } from "../signer/stepUp";

/** How the user proves a fresh sign-in for an export (step-up), when the session is not fresh. */
export type ExportStepUp = StepUp;

/** What `exportWallet` takes. */
export interface ExportWalletParameters {
  /** Where the export frame goes: the words are shown there, in the service's page, never in this one. */
  iframeContainer: HTMLElement;
  /** The wallet to export; the user's wallet by default. */
  walletId?: string;
  /** A fresh sign-in, when the session's own sign-in is older than five minutes (STEP_UP_REQUIRED). */
  stepUp?: ExportStepUp;
  /** Labels the frame shows (set as text); English by default. */
  texts?: ExportFrameTexts;
  iframeId?: string;
}

/** What `exportWallet` resolves with once the frame shows the words. */
export interface ExportWalletReturnType {
  walletId: string;
  /** How many words the frame shows (12 or 24). */
  wordCount: number;
  /** Removes the frame, and with it the words. */
  close(): void;
}

/** The errors `exportWallet` may throw (discriminate on `name` and `code`). */
export type ExportWalletErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SignerApiError<
      | "STEP_UP_REQUIRED"
      | "RATE_LIMITED"
      | "WALLET_NOT_FOUND"
      | "INVALID_VERIFICATION_TOKEN"
      | "INVALID_OTP"
      | "INVALID_MFA_CODE"
      | "MFA_LOCKED"
    >
  | PasskeyError
  | ActivityError
  | LatchkeyError<"FRAME_TIMEOUT" | "FRAME_UNAVAILABLE" | "FRAME_CLOSED" | "FRAME_ERROR">;

/**
 * Shows the signed-in user's recovery phrase in the service's export frame (spec §1, DESIGN §9): the
 * frame makes a target key, the service seals the mnemonic to it in a bundle signed by its
 * export-signing key, and only the frame checks, opens and shows it; this page never sees a word. The
 * service asks for a fresh sign-in (step-up): right after signing in by email, passkey or authenticator
 * app nothing more is needed; later it answers STEP_UP_REQUIRED (`stepUpMethodsOf(error)` says what the
 * user can use) and the call is made again with `stepUp`. The frame stays until `close()`; on an error
 * it is removed.
 *
 * @example
 * try {
 *   const shown = await exportWallet(signer, { iframeContainer: element });
 * } catch (error) {
 *   if (stepUpMethodsOf(error)) {
 *     const { otpId } = await sendVerificationCode(signer, { contact: user.email });
 *     await exportWallet(signer, { iframeContainer: element, stepUp: { type: "email", otpId, verificationCode } });
 *   }
 * }
 */
export async function exportWallet(
  signer: SignerBase,
  params: ExportWalletParameters,
): Promise<ExportWalletReturnType> {
  const user = await requireUser(signer);
  const { client } = signer;
  const walletId =
    params.walletId ??
    (await client.query<{ wallets: { walletId: string }[] }>("list_wallets", { organizationId: user.orgId }))
      .wallets[0]?.walletId;
  const channel = await openServiceFrame(signer, {
    page: "export",
    container: params.iframeContainer,
    iframeId: params.iframeId ?? DEFAULT_EXPORT_IFRAME_ID,
    title: "Wallet export",
  });
  try {
    const targetPublicKey = await channel.call<string>("getTargetPublicKey");
    const activity = await withStepUp(signer, params.stepUp, ({ stamper, ...proof }) =>
      client.submit(
        "export_wallet",
        {
          type: "ACTIVITY_TYPE_EXPORT_WALLET",
          organizationId: user.orgId,
          parameters: { walletId: walletId ?? "", targetPublicKey, ...proof },
        },
        stamper ? { stamper } : {},
      ),
    );
    const result = (activity.result as { exportWalletResult?: { walletId: string; exportBundle: string } })
      .exportWalletResult;
    if (!result?.exportBundle) {
      throw new ActivityError({
        id: activity.id,
        status: activity.status,
        failure: { code: "NO_RESULT", message: "The export activity carried no export bundle" },
      });
    }
    const shown = await channel.call<ExportFrameShown>("injectExportBundle", {
      exportBundle: result.exportBundle,
      organizationId: user.orgId,
      // A split wallet's share is kept by wallet (an imported one's under its id).
      walletId: result.walletId,
      ...(params.texts ? { texts: params.texts } : {}),
    });
    return { walletId: result.walletId, wordCount: shown.wordCount, close: () => channel.close() };
  } catch (error) {
    channel.close();
    throw error;
  }
}
