import { createRequire } from "node:module";
import { secp256k1 as noble } from "@noble/curves/secp256k1";

/**
 * Which secp256k1 implementation signs and derives: libsecp256k1 through the optional `secp256k1`
 * package (native, ~7x faster: its prebuilt or compiled addon), or `@noble/curves` (pure JS) where the
 * addon cannot load. Both give byte-identical RFC 6979 low-s signatures and recovery ids
 * (secp256k1.test.ts). `LATCHKEY_SECP256K1=noble` forces the fallback.
 */
export type Secp256k1Backend = "libsecp256k1" | "noble";

/** The operations the service needs, whichever implementation runs them. */
export interface Secp256k1 {
  readonly backend: Secp256k1Backend;
  /** RFC 6979 deterministic, low-s; `recovery` is 0 or 1. */
  sign(digest: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; recovery: number };
  publicKey(privateKey: Uint8Array, compressed: boolean): Uint8Array;
}

interface NativeAddon {
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
}

const nobleSecp256k1: Secp256k1 = {
  backend: "noble",
  sign(digest, privateKey) {
    const sig = noble.sign(digest, privateKey, { lowS: true });
    const bytes = sig.toCompactRawBytes();
    return { r: bytes.subarray(0, 32), s: bytes.subarray(32), recovery: sig.recovery ?? 0 };
  },
  publicKey: (privateKey, compressed) => noble.getPublicKey(privateKey, compressed),
};

function nativeSecp256k1(addon: NativeAddon): Secp256k1 {
  return {
    backend: "libsecp256k1",
    sign(digest, privateKey) {
      // libsecp256k1 signs with RFC 6979 nonces and always answers the low-s form.
      const { signature, recid } = addon.ecdsaSign(digest, privateKey);
      return { r: signature.subarray(0, 32), s: signature.subarray(32), recovery: recid };
    },
    publicKey: (privateKey, compressed) => addon.publicKeyCreate(privateKey, compressed),
  };
}

/** The native addon, or undefined where it is not installed or does not load on this machine. */
export function loadNativeSecp256k1(): Secp256k1 | undefined {
  try {
    // `secp256k1/bindings` is the addon alone (the package's root falls back to elliptic, which we never want).
    const require = createRequire(import.meta.url);
    return nativeSecp256k1(require("secp256k1/bindings") as NativeAddon);
  } catch {
    return undefined;
  }
}

/** The pure-JS implementation (the fallback, and the reference the native one is tested against). */
export function nobleSecp256k1Impl(): Secp256k1 {
  return nobleSecp256k1;
}

let chosen: Secp256k1 | undefined;

/** The implementation in use, chosen on first use: native unless it cannot load or is turned off. */
export function secp256k1Impl(): Secp256k1 {
  chosen ??=
    (process.env.LATCHKEY_SECP256K1 === "noble" ? undefined : loadNativeSecp256k1()) ?? nobleSecp256k1;
  return chosen;
}
