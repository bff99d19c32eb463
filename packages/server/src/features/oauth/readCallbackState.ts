import { oauthStateSchema } from "@latchkey/protocol/schemas";
import type { OauthState } from "./callbackAnswer";

/** A state longer than this is not one the service made (prepareOauth.ts). */
const MAX_STATE_LENGTH = 8192;

/**
 * The state the provider handed back, as prepareOauth made it; null for anything else:
 *  1. present and of a plausible length;
 *  2. base64url of JSON;
 *  3. the fields of `oauthStateSchema` (the request key, the mode and where to answer, the browser's
 *     target key, what was asked).
 * Nothing in it is trusted yet: consumeOauthRequest.ts checks it against the stored request.
 */
export function readCallbackState(raw: string | undefined): OauthState | null {
  // 1.
  if (!raw || raw.length > MAX_STATE_LENGTH) return null;
  try {
    // 2.
    const json: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    // 3.
    const parsed = oauthStateSchema.safeParse(json);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
