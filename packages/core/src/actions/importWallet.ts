import type {
  ImportBundleData,
  ImportSecret,
  ImportWalletResult,
  InitImportWalletResult,
} from "@latchkey/protocol";
import type {
  ImportFrameAccount,
  ImportFrameExtracted,
  ImportFrameKind,
  ImportFrameTexts,
} from "@latchkey/protocol/frame";
import type { Hex } from "viem";
import { ActivityError, LatchkeyError, type PasskeyError, type SignerApiError, SignerError } from "../errors";
import type { User } from "../session/types";
import { custodyConfig, custodyOf } from "../signer/custody";
import { requireUser } from "../signer/guards";
import { type StepUp, withStepUp } from "../signer/stepUp";
import type { SignerBase } from "../signer/types";
import { openServiceFrame } from "./serviceFrame";

/** The import frame's element id unless `iframeId` says otherwise. */
export const DEFAULT_IMPORT_IFRAME_ID = "latchkey-import-iframe";

/** What the user imports: a 12- or 24-word recovery phrase, an EVM private key, a Solana private key. */
export type ImportWalletKind = ImportFrameKind;

/** What `importWallet` takes: in a browser, where the import frame goes; in Node, the secret itself. */
export type ImportWalletParameters =
  | {
      /** Where the import frame goes: the user types the secret there, in the service's page, never in this one. */
      iframeContainer: HTMLElement;
      /** What the frame asks for; a recovery phrase by default. */
      kind?: ImportWalletKind;
      /** Labels and messages the frame shows (set as text); English by default. */
      texts?: ImportFrameTexts;
      iframeId?: string;
      secret?: undefined;
    }
  | {
      /**
       * Node (a key holder in this process, e.g. the memory holder): the phrase or key as text. In a split
       * app the holder splits it and keeps the user's share (docs/split-custody.md §5); otherwise it is
       * sealed whole to the import key, as the frame does. Never pass a user's secret through a web page:
       * in a browser, use `iframeContainer`.
       */
      secret: string;
      kind?: ImportWalletKind;
      iframeContainer?: undefined;
    };

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
  if (params.secret !== undefined) return importInProcess(signer, user, kind, params.secret);
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
  return submitter(
    signer,
    user,
    kind,
    async () => {
      const extracted = await channel.call<ImportFrameExtracted>("extractEncryptedBundle");
      return {
        encryptedBundle: extracted.encryptedBundle,
        ...(extracted.split ? { accounts: extracted.split.accounts } : {}),
      };
    },
    () => channel.close(),
  );
}

/** What import_wallet is given of the secret: sealed to the import key, and a split import's accounts. */
interface Sealed {
  encryptedBundle: string;
  accounts?: ImportFrameAccount[];
}

function submitter(
  signer: SignerBase,
  user: Awaited<ReturnType<typeof requireUser>>,
  kind: ImportWalletKind,
  extract: () => Promise<Sealed>,
  close: () => void,
): ImportWalletReturnType {
  let sealed: Sealed | undefined;
  return {
    kind,
    async submit(options = {}) {
      sealed ??= await extract();
      const { encryptedBundle, accounts } = sealed;
      try {
        const activity = await withStepUp(signer, options.stepUp, ({ stamper, ...proof }) =>
          signer.client.submit(
            "import_wallet",
            {
              type: "ACTIVITY_TYPE_IMPORT_WALLET",
              organizationId: user.orgId,
              parameters: {
                userId: user.userId,
                encryptedBundle,
                ...(accounts ? { accounts } : {}),
                ...proof,
              },
            },
            stamper ? { stamper } : {},
          ),
        );
        const result = resultOf<ImportWalletResult>(activity, "importWalletResult", "walletId");
        sealed = undefined;
        setUserAddresses(signer, result);
        // A split import's wallet has no recovery factor yet: the user protects again (one factor for all).
        if (accounts) signer.store.setState({ recovery: [] });
        return result;
      } catch (error) {
        if (!KEEP_SEALED.has((error as { code?: string } | null)?.code ?? "")) sealed = undefined;
        throw error;
      }
    },
    close,
  };
}

/**
 * The import of a secret given in this process (Node): init_import_wallet, then what the frame does: a
 * split app's (the bundle says `custody: "split"`) is split by the key holder, which keeps the user's
 * share under the wallet's id to be; any other is sealed whole to the import key.
 */
async function importInProcess(
  signer: SignerBase,
  user: Awaited<ReturnType<typeof requireUser>>,
  kind: ImportWalletKind,
  text: string,
): Promise<ImportWalletReturnType> {
  const crypto = await import("@latchkey/protocol/crypto");
  let secret: ImportSecret;
  try {
    // The words' checksum is checked where they are read (walletOfImport; the service, again, for a whole one).
    secret = crypto.parseImportSecret(kind, text, () => true);
  } catch (error) {
    throw new LatchkeyError("INVALID_IMPORT_SECRET", (error as Error).message, { cause: error });
  }
  const init = await signer.client.submit("init_import_wallet", {
    type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
    organizationId: user.orgId,
    parameters: { userId: user.userId },
  });
  const { importBundle } = resultOf<InitImportWalletResult>(init, "initImportWalletResult", "importBundle");
  const data = importBundleData(importBundle, crypto.fromHex);
  return submitter(
    signer,
    user,
    kind,
    async () => {
      if (data.custody === "split" && data.walletId) {
        const custody = custodyOf(signer);
        if (!custody.importSplitWallet) throw new SignerError("SPLIT_CUSTODY_UNSUPPORTED_HOLDER");
        const { shareKey } = await custodyConfig(signer);
        try {
          return await custody.importSplitWallet({
            organizationId: user.orgId,
            walletId: data.walletId,
            targetPublicKey: data.targetPublic,
            secret,
            shareKey,
          });
        } catch (error) {
          if (error instanceof Error && /mnemonic|entropy|checksum/i.test(error.message))
            throw new LatchkeyError("INVALID_IMPORT_SECRET", "This is not a valid recovery phrase", {
              cause: error,
            });
          throw error;
        }
      }
      const plaintext = crypto.encodeImportSecret(secret);
      try {
        return {
          encryptedBundle: await crypto.encryptToImportKey({ plaintext, targetPublicKey: data.targetPublic }),
        };
      } finally {
        plaintext.fill(0);
      }
    },
    () => {},
  );
}

/** The signed data of an import bundle, read (the service checks the bundle it signed when it is used). */
function importBundleData(importBundle: string, fromHex: (hex: string) => Uint8Array): ImportBundleData {
  try {
    const { data } = JSON.parse(importBundle) as { data: string };
    return JSON.parse(new TextDecoder().decode(fromHex(data))) as ImportBundleData;
  } catch (cause) {
    throw new LatchkeyError("INVALID_IMPORT_BUNDLE", "The service's import bundle could not be read", {
      cause,
    });
  }
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
