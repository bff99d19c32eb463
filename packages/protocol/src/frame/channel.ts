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

export type FrameMethod =
  | "initTargetKey"
  | "getTargetPublicKey"
  | "injectCredentialBundle"
  | "stamp"
  | "clear";

export interface FrameRequest {
  id: number;
  method: FrameMethod;
  params: { bundle?: string; body?: string; targetKey?: boolean };
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
}

export interface ExportFrameRequest {
  id: number;
  method: ExportFrameMethod;
  params: { exportBundle?: string; organizationId?: string; texts?: ExportFrameTexts };
}

/** What `injectExportBundle` answers: how many words are shown (12 or 24), nothing more. */
export interface ExportFrameShown {
  wordCount: number;
}
