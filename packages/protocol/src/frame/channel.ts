/** The auth frame's channel protocol: the frame (@latchkey/frames), the iframe key holder (@latchkey/core) and the server that serves the frame share these. */
export const FRAME_INIT_MESSAGE = "latchkey:init";
export const FRAME_READY_MESSAGE = "latchkey:ready";
/** `<meta name=…>` whose content lists the origins allowed to open a channel (JSON array). */
export const ALLOWED_ORIGINS_META = "latchkey-allowed-origins";

/**
 * The frame's first message on the channel: it is ready, and where its keys live — `persistent`
 * (IndexedDB) or `memory` when the browser refused it storage (the session then lasts as long as the page).
 */
export interface FrameReadyMessage {
  type: typeof FRAME_READY_MESSAGE;
  storage: "persistent" | "memory";
  storageError?: string;
}

/**
 * The auth frame's methods. `stamp` answers `StampHeader & { userShare? }`: the user's share of a
 * split-custody wallet sealed to the service's share key (the frame's own `<meta>`) for that body, when
 * the body is one that carries it (docs/split-custody.md §2). The custody methods keep the user share in
 * the frame (per parent origin, by organisation) and answer only what the service or the user may see.
 */
export type FrameMethod =
  | "initTargetKey"
  | "getTargetPublicKey"
  | "injectCredentialBundle"
  | "stamp"
  | "clear"
  /** → `{ serviceShare, accounts }`: a new wallet made in the frame; it keeps the user share. */
  | "createSplitWallet"
  /**
   * → `{ sealed, accounts }`: a new user's wallet for the sign-in of code `otpId` to `targetPublicKey`
   * (`/v1/otp`'s `splitWallet`), both shares sealed to the page's share key; the user share stays pending.
   */
  | "prepareSignInWallet"
  /** → boolean: keeps the pending sign-in wallet's share when the service answered its `address`; else forgets it. */
  | "keepSignInWallet"
  /** → boolean: whether the frame holds a share for `organizationId`'s first wallet, or for the imported `walletId`. */
  | "hasUserShare"
  /** → `[{ walletId, addresses }]`: the imported wallets whose shares the frame keeps (docs/split-custody.md §5). */
  | "walletShares"
  /**
   * → `{ targetPublicKey }`: a whole wallet's split begun (docs/split-custody.md §3.1): a new ephemeral key
   * for `organizationId`; the frame stamps a begin_split_wallet body only with that key as its target.
   */
  | "beginSplit"
  /** Opens begin_split_wallet's sealed `userShare` for `walletId` and keeps it; USER_SHARE_INVALID when it does not. */
  | "acceptSplitShare"
  /** → `{ blob, code? }`: wallet `walletId`'s share encrypted under `prfOutput`, or `code`, or a new code (shown once). */
  | "protectShare"
  /**
   * Opens `blob` with `prfOutput` or `code` and keeps the share (with `addresses`: as that imported
   * wallet's); RECOVERY_FAILED when it does not open.
   */
  | "restoreShare"
  /**
   * → `StampHeader & { userShare?, confirmation }`: the signing body `body` drawn in the frame for the
   * user (decoded and simulated by the service's `preview_signing`, in `locale`), and stamped only when
   * they press Confirm there, with a confirmation over its digest by a key only the frame holds
   * (CONFIRMATION_HEADER_NAME). Cancel answers the error USER_REJECTED.
   */
  | "confirmSigning";

/** A recovery blob as the service stores it (`@latchkey/protocol/custody`'s RecoveryBlob). */
export interface FrameRecoveryBlob {
  v: 1;
  salt: string;
  iv: string;
  ciphertext: string;
}

export interface FrameRequest {
  id: number;
  method: FrameMethod;
  params: {
    bundle?: string;
    body?: string;
    targetKey?: boolean;
    organizationId?: string;
    walletId?: string;
    /** A passkey's PRF output (32 bytes). */
    prfOutput?: Uint8Array;
    /** A recovery code the user typed. */
    code?: string;
    /** begin_split_wallet's `userShare`, sealed to the frame's split key (acceptSplitShare). */
    userShare?: string;
    blob?: FrameRecoveryBlob;
    /** The emailed code's id and the session's target key a sign-in wallet is bound to (prepareSignInWallet). */
    otpId?: string;
    targetPublicKey?: string;
    /** The user's EVM address the sign-in answered (keepSignInWallet). */
    address?: string;
    /** An imported wallet's addresses (restoreShare). */
    addresses?: string[];
    /** The language the confirmation step is drawn in (confirmSigning): en, de, fr or es. */
    locale?: string;
  };
}

/**
 * Enforced confirmations (issue 46): a signature an app's signing policy says must be confirmed carries
 * `X-Confirmation` (or `stampedRequest.confirmation`): `v1.<confirmedAtMs>.<signature hex>`, the
 * signature (ECDSA P-256 SHA-256, r‖s) by the auth frame's confirmation key over
 * {@link confirmationMessage}. The frame registers that key's public key with its session
 * (CONFIRMATION_KEY_PATH, from its own origin) and makes the signature only when the user presses Confirm
 * in the frame.
 */
export const CONFIRMATION_HEADER_NAME = "X-Confirmation";
/** Where the auth frame registers its confirmation key (POST, stamped by the session key, same origin). */
export const CONFIRMATION_KEY_PATH = "/frames/v1/confirmation-key";
/** The stamped body's `type` of a confirmation-key registration. */
export const CONFIRMATION_KEY_TYPE = "ACTIVITY_TYPE_REGISTER_CONFIRMATION_KEY";
/** How long a confirmation is good for after the user pressed Confirm (ms). */
export const CONFIRMATION_TTL_MS = 120_000;

/**
 * What the frame's confirmation key signs: the exact body's SHA-256 (hex, the activity's fingerprint) and
 * when the user confirmed it, so a confirmation signs one request, once, for two minutes.
 */
export function confirmationMessage(bodySha256Hex: string, confirmedAtMs: number): string {
  return `latchkey-confirmation:v1:${bodySha256Hex}:${confirmedAtMs}`;
}

export interface FrameResponse {
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

/** `<meta name=…>` of the export frame: the service's export-signing public key it pins (uncompressed hex). */
export const EXPORT_SIGNER_META = "latchkey-export-signer";

/**
 * The export frame's methods (`/frames/export`): its target public key (made when the page loads,
 * non-extractable, never stored), and a bundle to check, open and show. Answers never carry a secret.
 */
export type ExportFrameMethod = "getTargetPublicKey" | "injectExportBundle" | "clear";

/** Labels the export frame shows, from the host's texts (set as text, never as markup). */
export interface ExportFrameTexts {
  /** Above the numbered words, e.g. 'Your recovery phrase'. */
  phraseTitle?: string;
  showEvmKey?: string;
  showSolanaKey?: string;
  evmKeyTitle?: string;
  solanaKeyTitle?: string;
  /** Shown when the bundle fails its checks. */
  invalidBundle?: string;
  /** Shown when a split wallet's export finds no user share on this device (restore it first). */
  noUserShare?: string;
}

export interface ExportFrameRequest {
  id: number;
  method: ExportFrameMethod;
  /** `walletId`: the exported wallet, whose share (an imported wallet's, or the first's) the frame reads. */
  params: { exportBundle?: string; organizationId?: string; walletId?: string; texts?: ExportFrameTexts };
}

/** What `injectExportBundle` answers: how many words are shown (12 or 24), nothing more. */
export interface ExportFrameShown {
  wordCount: number;
}

/** `<meta name=…>` of the import frame: the service's import-signing public key it pins (uncompressed hex). */
export const IMPORT_SIGNER_META = "latchkey-import-signer";

/**
 * The import frame's methods (`/frames/import`): check an import bundle and show the field for the secret
 * (`injectImportBundle`), then read, check and seal what the user typed to the bundle's key
 * (`extractEncryptedBundle`). Answers never carry a secret: only the sealed bundle.
 */
export type ImportFrameMethod = "injectImportBundle" | "extractEncryptedBundle" | "clear";

/** What is imported: a BIP-39 recovery phrase, an EVM private key, a Solana private key. */
export type ImportFrameKind = "mnemonic" | "evm_private_key" | "solana_private_key";

/** Labels the import frame shows, from the host's texts (set as text, never as markup). */
export interface ImportFrameTexts {
  /** The field's label, e.g. 'Recovery phrase'. */
  label?: string;
  placeholder?: string;
  /** Shown when what was typed is not a 12- or 24-word BIP-39 phrase. */
  invalidPhrase?: string;
  invalidEvmKey?: string;
  invalidSolanaKey?: string;
  /** Shown when the import bundle fails its checks (another key, another user, expired). */
  invalidBundle?: string;
}

export interface ImportFrameRequest {
  id: number;
  method: ImportFrameMethod;
  params: {
    importBundle?: string;
    organizationId?: string;
    userId?: string;
    kind?: ImportFrameKind;
    texts?: ImportFrameTexts;
  };
}

/** What `extractEncryptedBundle` answers: the secret sealed to the import key, and its kind. */
export interface ImportFrameExtracted {
  /** JSON of `EncryptedImportBundle`: what `import_wallet` takes. */
  encryptedBundle: string;
  kind: ImportFrameKind;
  /**
   * A split app's import (the bundle said so, docs/split-custody.md §5): the frame split the secret, sealed
   * only the service's share, kept the user's in the auth frame's storage under the bundle's wallet id, and
   * answers the public accounts (import_wallet's `accounts`) and that id.
   */
  split?: { walletId: string; accounts: ImportFrameAccount[] };
}

/** A public account of an imported split wallet (`PublicAccount` of `@latchkey/protocol/custody`). */
export interface ImportFrameAccount {
  curve: "CURVE_SECP256K1" | "CURVE_ED25519";
  path: string;
  addressFormat: "ADDRESS_FORMAT_ETHEREUM" | "ADDRESS_FORMAT_SOLANA";
  address: string;
  publicKey: string;
}
