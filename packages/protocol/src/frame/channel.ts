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
