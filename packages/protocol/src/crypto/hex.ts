import { bytesToHex, hexToBytes } from "@noble/hashes/utils";

/** Lowercase hex without a `0x` prefix. */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/**
 * Parses hex, with or without a `0x` prefix, in either case. Throws on odd length or a non-hex
 * character: silently truncating a key or signature would turn a typo into a different value.
 */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== "string") throw new TypeError("hex string expected");
  const body = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (body.length % 2 !== 0) throw new TypeError("hex string has odd length");
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new TypeError("hex string has a non-hex character");
  return hexToBytes(body);
}

/** Uint8Array check that also holds across realms (iframes, workers' transferred views). */
export function isBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array || (ArrayBuffer.isView(value) && value.constructor.name === "Uint8Array")
  );
}

/** Concatenates byte arrays into a fresh one. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
