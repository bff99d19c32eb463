/**
 * `@latchkey/protocol/codecs`: the byte codecs every package shares, one implementation each, with
 * nothing else: base64url (strict, and the lenient reading WebAuthn ids need), base58 (Solana addresses,
 * import secrets) and hex. Small on purpose, and free of hashing: the modal's first load (the OAuth
 * state), the auth frame and the Solana wallet use it without the protocol's hashes, curves, HPKE or
 * schemas. (The passkey stamp's challenge hashes: it is `passkeyStampChallenge` of `./crypto`.)
 */

export { base58Decode } from "./crypto/base58";
export { decodeBase64url, decodeBase64urlLenient, encodeBase64url } from "./crypto/base64url";
export { fromHex, toHex } from "./crypto/hex";
