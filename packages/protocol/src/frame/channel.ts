/** The auth frame's channel protocol: the frame (@latchkey/frames), the iframe key holder (@latchkey/core) and the server that serves the frame share these. */
export const FRAME_INIT_MESSAGE = "latchkey:init";
export const FRAME_READY_MESSAGE = "latchkey:ready";
/** `<meta name=…>` whose content lists the origins allowed to open a channel (JSON array). */
export const ALLOWED_ORIGINS_META = "latchkey-allowed-origins";

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
