import { putWalletShare, storedUserShares } from "@latchkey/keystore";
import {
  BundleError,
  encodeImportSecret,
  encodeSplitImport,
  encryptToImportKey,
  type ImportSecret,
  ImportSecretError,
  parseImportSecret,
  verifyImportBundle,
} from "@latchkey/protocol/crypto";
import {
  encodeWalletSecret,
  splitWalletSecret,
  walletOfImport,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import {
  IMPORT_SIGNER_META,
  type ImportFrameExtracted,
  type ImportFrameKind,
  type ImportFrameRequest,
  type ImportFrameTexts,
} from "@latchkey/protocol/frame";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { authFrameDatabase } from "./database";
import { metaContent } from "./meta";
import { serveParent } from "./serveParent";

/**
 * The import frame (`/frames/import`), the mirror of the export frame: the user types a recovery phrase or
 * a private key here, on the service's origin, and the host page gets only that secret sealed to a key the
 * service made for this one import. The host hands over the service's import bundle; the frame checks it
 * against the import-signing key the service pinned in this page (and the user it is for, and its expiry),
 * shows the field, and on `extractEncryptedBundle` checks what was typed (BIP-39 words and checksum, or a
 * key of the kind), seals it by HPKE to the bundle's key, clears the field and answers the sealed bundle.
 * Channels are accepted from the parent window on the app's allowed origins only. No network requests.
 * In a split app (the bundle says so) the frame splits the secret instead (splitImport below).
 */
const DEFAULT_TEXTS: Required<ImportFrameTexts> = {
  label: "Recovery phrase",
  placeholder: "",
  invalidPhrase: "This is not a valid 12- or 24-word recovery phrase.",
  invalidEvmKey: "This is not an EVM private key (64 hexadecimal characters).",
  invalidSolanaKey: "This is not a Solana private key.",
  invalidBundle: "The import could not be verified.",
};

const KINDS: readonly ImportFrameKind[] = ["mnemonic", "evm_private_key", "solana_private_key"];

/** The import this page was given: the key to seal to, for which kind of secret, with which texts. */
let current: {
  targetPublicKey: string;
  expiresAtMs: number;
  organizationId: string;
  /** A split app's import: the wallet's id to be (signed into the bundle by the service). */
  split?: { walletId: string };
  kind: ImportFrameKind;
  texts: Required<ImportFrameTexts>;
  field: HTMLTextAreaElement;
  error: HTMLParagraphElement;
} | null = null;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function showError(message: string): void {
  document.body.replaceChildren(el("p", { class: "error", role: "alert" }, message));
}

function textsOf(given: ImportFrameTexts | undefined): Required<ImportFrameTexts> {
  const texts = { ...DEFAULT_TEXTS };
  for (const k of Object.keys(DEFAULT_TEXTS) as (keyof ImportFrameTexts)[]) {
    const v = given?.[k];
    if (typeof v === "string" && v.length > 0 && v.length < 300) texts[k] = v;
  }
  return texts;
}

/** The field for the secret: not spell-checked, not completed, not capitalised, never stored by the browser. */
function render(kind: ImportFrameKind, texts: Required<ImportFrameTexts>) {
  const field = el("textarea", {
    id: "secret",
    "data-testid": "import-secret",
    autocomplete: "off",
    autocapitalize: "off",
    autocorrect: "off",
    spellcheck: "false",
    rows: kind === "mnemonic" ? "4" : "2",
    ...(texts.placeholder ? { placeholder: texts.placeholder } : {}),
  });
  const error = el("p", { class: "error", role: "alert", "data-testid": "import-error" });
  error.hidden = true;
  field.addEventListener("input", () => {
    error.hidden = true;
  });
  document.body.replaceChildren(el("label", { for: "secret" }, texts.label), field, error);
  return { field, error };
}

const INVALID_TEXT = {
  INVALID_PHRASE: "invalidPhrase",
  INVALID_EVM_KEY: "invalidEvmKey",
  INVALID_SOLANA_KEY: "invalidSolanaKey",
} as const;

/**
 * A split app's import (docs/split-custody.md §5, Import): the typed secret made a wallet secret and split
 * 2-of-2 here; the user's share is kept in the auth frame's storage for the parent origin (same origin and
 * storage partition) under the wallet's id to be, with its addresses, so the auth frame signs with it; only
 * the service's share is sealed to the import key. Answers that plaintext and the public accounts.
 */
async function splitImport(
  secret: ImportSecret,
  state: { organizationId: string; split: { walletId: string } },
  parentOrigin: string,
) {
  const { secret: walletSecret, accounts } = await walletOfImport(secret);
  const encoded = encodeWalletSecret(walletSecret);
  wipeWalletSecret(walletSecret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  try {
    await putWalletShare(storedUserShares(authFrameDatabase(parentOrigin)), {
      organizationId: state.organizationId,
      walletId: state.split.walletId,
      addresses: accounts.map((a) => a.address),
      share: userShare,
    });
    return { plaintext: encodeSplitImport(serviceShare), accounts };
  } finally {
    userShare.fill(0);
    serviceShare.fill(0);
  }
}

async function handle(request: ImportFrameRequest, parentOrigin: string): Promise<unknown> {
  const { params } = request;
  switch (request.method) {
    case "injectImportBundle": {
      if (typeof params?.importBundle !== "string") throw new TypeError("importBundle must be a string");
      if (typeof params.organizationId !== "string") throw new TypeError("organizationId must be a string");
      if (typeof params.userId !== "string") throw new TypeError("userId must be a string");
      const kind = params.kind ?? "mnemonic";
      if (!KINDS.includes(kind))
        throw new TypeError("kind must be mnemonic, evm_private_key or solana_private_key");
      const texts = textsOf(params.texts);
      const signer = metaContent(IMPORT_SIGNER_META);
      let checked: ReturnType<typeof verifyImportBundle>;
      try {
        if (!signer) throw new BundleError("no import-signing key pinned");
        checked = verifyImportBundle({
          importBundle: params.importBundle,
          organizationId: params.organizationId,
          userId: params.userId,
          signerPublicKey: signer,
          nowMs: Date.now(),
        });
      } catch (error) {
        current = null;
        showError(texts.invalidBundle);
        throw error;
      }
      current = { ...checked, organizationId: params.organizationId, kind, texts, ...render(kind, texts) };
      return { kind };
    }
    case "extractEncryptedBundle": {
      const state = current;
      if (!state) throw new TypeError("no import bundle was given");
      if (!(Date.now() < state.expiresAtMs)) {
        current = null;
        showError(state.texts.invalidBundle);
        throw new BundleError("import bundle has expired");
      }
      let secret: ImportSecret;
      try {
        secret = parseImportSecret(state.kind, state.field.value, (m) => validateMnemonic(m, wordlist));
      } catch (error) {
        if (error instanceof ImportSecretError) {
          state.error.textContent = state.texts[INVALID_TEXT[error.code]];
          state.error.hidden = false;
        }
        throw error;
      }
      const { split } = state;
      const made = split
        ? await splitImport(secret, { organizationId: state.organizationId, split }, parentOrigin)
        : { plaintext: encodeImportSecret(secret), accounts: undefined };
      const { plaintext } = made;
      const encryptedBundle = await encryptToImportKey({ plaintext, targetPublicKey: state.targetPublicKey });
      plaintext.fill(0);
      state.field.value = "";
      return {
        encryptedBundle,
        kind: state.kind,
        ...(split && made.accounts ? { split: { walletId: split.walletId, accounts: made.accounts } } : {}),
      } satisfies ImportFrameExtracted;
    }
    case "clear":
      current = null;
      document.body.replaceChildren();
      return null;
    default:
      throw new TypeError("unknown method");
  }
}

serveParent<ImportFrameRequest>({
  handle,
  codeOf: (error) => {
    if (error instanceof BundleError) return "INVALID_IMPORT_BUNDLE";
    if (error instanceof ImportSecretError) return "INVALID_IMPORT_SECRET";
    return undefined;
  },
  ready: () => ({ storage: "memory" }),
});
