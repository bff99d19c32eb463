import type { ImportWalletResult, InitImportWalletResult } from "@latchkey/protocol";
import type { ImportFrameExtracted, ImportFrameKind, ImportFrameTexts } from "@latchkey/protocol/frame";
import type { Hex } from "viem";
import {
  ActivityError,
  type LatchkeyError,
  type PasskeyError,
  type SignerApiError,
  type SignerError,
} from "../errors";
import type { User } from "../session/types";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";
import { openServiceFrame } from "./serviceFrame";

/** The import frame's element id unless `iframeId` says otherwise. */
export const DEFAULT_IMPORT_IFRAME_ID = "latchkey-import-iframe";

/** What the user imports: a 12- or 24-word recovery phrase, an EVM private key, a Solana private key. */
export type ImportWalletKind = ImportFrameKind;

/** What `importWallet` takes. */
export interface ImportWalletParameters {
  /** Where the import frame goes: the user types the secret there, in the service's page, never in this one. */
  iframeContainer: HTMLElement;
  /** What the frame asks for; a recovery phrase by default. */
  kind?: ImportWalletKind;
  /** Labels and messages the frame shows (set as text); English by default. */
  texts?: ImportFrameTexts;
  iframeId?: string;
}

/** What the import did: the new wallet, and the addresses the app now uses (also in `signer` state). */
export type ImportedWallet = ImportWalletResult;

/** The open import: the frame shows its field until `submit` succeeds or `close` is called. */
export interface ImportWalletReturnType {
  kind: ImportWalletKind;
  /**
   * Seals what the user typed (in the frame) and imports it. When the service asks for a fresh sign-in
   * (STEP_UP_REQUIRED, `stepUpMethodsOf(error)`), call it again with `stepUp`: the sealed secret is kept
   * for that, the user does not type it again. Any other refusal clears it (the user types it again).
   */
  submit(options?: { stepUp?: StepUp }): Promise<ImportedWallet>;
  /** Removes the frame, and with it anything typed. */
  close(): void;
}

/** The errors `importWallet` and `submit` may throw (discriminate on `name` and `code`). */
export type ImportWalletErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SignerApiError<
      | "STEP_UP_REQUIRED"
      | "RATE_LIMITED"
      | "INVALID_IMPORT_BUNDLE"
      | "IMPORT_KEY_USED"
      | "IMPORT_KEY_EXPIRED"
      | "INVALID_IMPORT_SECRET"
      | "WALLET_ALREADY_IMPORTED"
      | "INVALID_VERIFICATION_TOKEN"
      | "INVALID_OTP"
      | "INVALID_MFA_CODE"
      | "MFA_LOCKED"
    >
  | PasskeyError
  | ActivityError
  | LatchkeyError<
      | "INVALID_IMPORT_SECRET"
      | "INVALID_IMPORT_BUNDLE"
      | "FRAME_TIMEOUT"
      | "FRAME_UNAVAILABLE"
      | "FRAME_CLOSED"
      | "FRAME_ERROR"
    >;

// A refusal of the proof, not of the secret: the sealed secret is kept for the next try.
const KEEP_SEALED = new Set([
  "STEP_UP_REQUIRED",
  "INVALID_VERIFICATION_TOKEN",
  "INVALID_OTP",
  "INVALID_MFA_CODE",
]);

/**
 * Opens the service's import frame, where the user pastes a recovery phrase (12 or 24 words) or an EVM or
 * Solana private key; this page never sees it. The service makes a key for this one import (single use,
 * ten minutes) and signs it; the frame checks that signature against the key it pins, and on `submit`
 * seals the secret to that key. The imported accounts become the ones the app uses (a phrase: EVM and
 * Solana; a key: its chain's); the user's earlier wallet is kept but no longer used, so show the user
 * what changes before they import. Importing needs a fresh sign-in (step-up), as export does. The
 * signed-in user's `address` and `solanaAddress` change at once.
 *
 * @example
 * const open = await importWallet(signer, { iframeContainer: element, kind: "mnemonic" });
 * // …the user types the words in the frame, then clicks the page's Import button:
 * try {
 *   const { address } = await open.submit();
 * } catch (error) {
 *   if (stepUpMethodsOf(error)) await open.submit({ stepUp: { type: "passkey" } });
 * }
 * open.close();
 */
export async function importWallet(
  signer: SignerBase,
  params: ImportWalletParameters,
): Promise<ImportWalletReturnType> {
  const user = await requireUser(signer);
  const { client } = signer;
  const kind = params.kind ?? "mnemonic";
  const channel = await openServiceFrame(signer, {
    page: "import",
    container: params.iframeContainer,
    iframeId: params.iframeId ?? DEFAULT_IMPORT_IFRAME_ID,
    title: "Wallet import",
  });
  channel.iframe.style.height = kind === "mnemonic" ? "190px" : "150px";
  try {
    const init = await client.submit("init_import_wallet", {
      type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
      organizationId: user.orgId,
      parameters: { userId: user.userId },
    });
    const { importBundle } = resultOf<InitImportWalletResult>(init, "initImportWalletResult", "importBundle");
    await channel.call("injectImportBundle", {
      importBundle,
      organizationId: user.orgId,
      userId: user.userId,
      kind,
      ...(params.texts ? { texts: params.texts } : {}),
    });
  } catch (error) {
    channel.close();
    throw error;
  }
  let sealed: string | undefined;
  return {
    kind,
    async submit(options = {}) {
      sealed ??= (await channel.call<ImportFrameExtracted>("extractEncryptedBundle")).encryptedBundle;
      const encryptedBundle = sealed;
      try {
        const activity = await withStepUp(signer, options.stepUp, ({ stamper, ...proof }) =>
          client.submit(
            "import_wallet",
            {
              type: "ACTIVITY_TYPE_IMPORT_WALLET",
              organizationId: user.orgId,
              parameters: { userId: user.userId, encryptedBundle, ...proof },
            },
            stamper ? { stamper } : {},
          ),
        );
        const result = resultOf<ImportWalletResult>(activity, "importWalletResult", "walletId");
        sealed = undefined;
        setUserAddresses(signer, result);
        return result;
      } catch (error) {
        if (!KEEP_SEALED.has((error as { code?: string } | null)?.code ?? "")) sealed = undefined;
        throw error;
      }
    },
    close: () => channel.close(),
  };
}

function resultOf<T>(
  activity: Awaited<ReturnType<SignerBase["client"]["submit"]>>,
  name: string,
  field: keyof T,
): T {
  const result = (activity.result as Record<string, T | undefined>)[name];
  if (!result?.[field]) {
    throw new ActivityError({
      id: activity.id,
      status: activity.status,
      failure: { code: "NO_RESULT", message: `The activity carried no ${name}` },
    });
  }
  return result;
}

/** The signed-in user's addresses after the import, in the state and the stored session (other tabs too). */
function setUserAddresses(signer: SignerBase, result: ImportWalletResult): void {
  const current = signer.store.getState().user;
  if (!current) return;
  const user: User = { ...current, address: result.address as Hex };
  if (result.solanaAddress) user.solanaAddress = result.solanaAddress;
  const session = signer.sessionManager.getSession();
  if (session) signer.sessionManager.setSession({ ...session, user });
  signer.store.setState({ user });
}
