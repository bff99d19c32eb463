import { pbkdf2Sync } from "node:crypto";
import { createRequire } from "node:module";

/**
 * BIP-39 seeds (PBKDF2-HMAC-SHA512, 2,048 rounds, 64 bytes): most of a new wallet's CPU. Computed by the
 * optional native addon (`native/pbkdf2_sha512.c`, compiled at install by `native/build.mjs`) where it
 * loads: it runs up to 8 seeds at once in AVX-512 lanes (4 with AVX2), ~6x node:crypto's throughput for a
 * batch, ~1.3x for a single seed. Elsewhere node:crypto computes them. Both give the same bytes
 * (pbkdf2.test.ts). `LATCHKEY_PBKDF2=node` forces node:crypto.
 */
export interface SeedBackend {
  /** "native" (the addon) or "node:crypto". */
  readonly name: "native" | "node:crypto";
  /** Seeds one call advances at once: 8 (AVX-512), 4 (AVX2) or 1. */
  readonly lanes: number;
  /** PBKDF2-HMAC-SHA512 of each password with its salt, 64 bytes each. */
  derive(passwords: Uint8Array[], salts: Uint8Array[], iterations: number): Buffer[];
}

interface NativeAddon {
  pbkdf2Sha512(passwords: Uint8Array[], salts: Uint8Array[], iterations: number, maxLanes?: number): Buffer[];
  /** The lanes one run advances on this CPU, at most `maxLanes`: 8, 4 or 1. */
  lanes(maxLanes?: number): number;
}

const nodeBackend: SeedBackend = {
  name: "node:crypto",
  lanes: 1,
  derive: (passwords, salts, iterations) =>
    passwords.map((p, i) => pbkdf2Sync(p, salts[i] ?? new Uint8Array(), iterations, 64, "sha512")),
};

// From source (src/crypto) and built (dist), the addon is in the package's native/build.
const ADDON_PATHS = ["../../native/build/pbkdf2_sha512.node", "../native/build/pbkdf2_sha512.node"];

/** The addon, capped at `maxLanes` (tests run every path the CPU has); undefined where it does not load. */
export function loadNativePbkdf2(maxLanes = 8): SeedBackend | undefined {
  const require = createRequire(import.meta.url);
  for (const path of ADDON_PATHS) {
    let addon: NativeAddon;
    try {
      addon = require(path) as NativeAddon;
    } catch {
      continue;
    }
    const lanes = addon.lanes(maxLanes);
    return {
      name: "native",
      lanes,
      derive: (passwords, salts, iterations) => addon.pbkdf2Sha512(passwords, salts, iterations, lanes),
    };
  }
  return undefined;
}

/** node:crypto's PBKDF2 (the fallback, and the reference the addon is tested against). */
export function nodePbkdf2(): SeedBackend {
  return nodeBackend;
}

let chosen: SeedBackend | undefined;

/** The backend in use, chosen on first use: the addon unless it cannot load or is turned off. */
export function seedBackend(): SeedBackend {
  chosen ??= (process.env.LATCHKEY_PBKDF2 === "node" ? undefined : loadNativePbkdf2()) ?? nodeBackend;
  return chosen;
}

/** The BIP-39 seeds of `mnemonics`, in order (NFKD-normalised, salt "mnemonic" + passphrase). */
export function bip39Seeds(mnemonics: readonly string[], passphrase = ""): Buffer[] {
  const salt = Buffer.from(`mnemonic${passphrase}`.normalize("NFKD"), "utf8");
  return seedBackend().derive(
    mnemonics.map((m) => Buffer.from(m.normalize("NFKD"), "utf8")),
    mnemonics.map(() => salt),
    2048,
  );
}
