import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../errors";

/** How deep a JSON body (or a JSON payload in one) may nest arrays and objects. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests arrays and objects deeper than `max`: one pass over the characters, no
 * recursion, so it runs before anything that recurses (JSON.stringify, schema checks, EIP-712 hashing)
 * can overflow the stack. Brackets inside strings do not count.
 */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** 400 JSON_TOO_DEEP when `text` nests deeper than `MAX_JSON_DEPTH`. */
export function assertJsonDepth(text: string, what: string): void {
  if (jsonDepthExceeds(text))
    throw apiError(
      ErrorCode.JSON_TOO_DEEP,
      `The ${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
}
