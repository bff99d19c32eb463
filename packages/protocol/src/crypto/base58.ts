/**
 * Bitcoin's base58 alphabet, decoded by the classic carry loop (as bs58 and Bitcoin Core do). A browser
 * opens one credential bundle per sign-in, in a page where nothing is compiled yet: this plain loop runs
 * in well under a millisecond there, where a generic radix converter plus a JavaScript SHA-256 took
 * 3–11 ms between the code's answer and `connected` (bench/otp-connected.ts).
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** The bytes of a base58 string; undefined when a character is outside the alphabet. */
export function base58Decode(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 0x31) zeros++;
  // log(58) / log(256) ≈ 0.7322: bytes needed for the digits after the leading ones.
  const size = Math.ceil(((text.length - zeros) * 733) / 1000) + 1;
  const b256 = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? (DIGIT[code] as number) : -1;
    if (carry < 0) return undefined;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 58 * (b256[k] as number);
      b256[k] = carry & 0xff;
      carry >>>= 8;
    }
    length = j;
  }
  let start = size - length;
  while (start < size && b256[start] === 0) start++;
  const out = new Uint8Array(zeros + size - start);
  out.set(b256.subarray(start), zeros);
  return out;
}
