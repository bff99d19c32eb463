import { pbkdf2Sync, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { BIP39_PASSPHRASE, BIP39_VECTORS } from "./bip39Vectors";

/**
 * BIP-39 seeds (PBKDF2-HMAC-SHA512, 2,048 rounds, 64 bytes): most of a new wallet's CPU. Computed by the
 * optional native addon (`native/pbkdf2_sha512.c`, compiled at install by `native/build.mjs`) where it
 * loads: it runs up to 8 seeds at once in AVX-512 lanes (4 with AVX2), ~6x node:crypto's throughput for a
 * batch, ~1.3x for a single seed. Elsewhere node:crypto computes them. Both give the same bytes
 * (pbkdf2.test.ts). `LATCHKEY_PBKDF2=node` forces node:crypto.
 *
 * Nothing from the addon is used unchecked: when it loads it must reproduce BIP-39's reference vectors
 * (bip39Vectors.ts) and agree with node:crypto on random inputs, through every path it will run (one seed
 * at a time, a full batch of lanes, a partial batch, a batch with a remainder); otherwise node:crypto
 * computes seeds, and the start-up line and /healthz say why (seedFallbackReason, seedBackendLabel).
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

const NOT_LOADED = "the native PBKDF2 addon is not loaded";

/** The addon loaded and passed its self-test, or why it is not used. */
export type NativeLoad = { ok: true; backend: SeedBackend } | { ok: false; reason: string };

type Vectors = readonly (readonly [mnemonic: string, seed: string])[];

/**
 * The known-answer test `derive` (`lanes` wide) must pass before it computes any seed: every BIP-39
 * vector alone (the one-at-a-time path), then batches that fill the lanes, leave some empty and leave a
 * remainder (sizes 2, 3, lanes - 1, lanes, lanes + 1, 2 × lanes + 1), then random passwords (some longer
 * than a SHA-512 block) and salts against node:crypto. Returns what failed, or undefined.
 */
export function pbkdf2SelfTest(
  derive: SeedBackend["derive"],
  lanes: number,
  vectors: Vectors = BIP39_VECTORS,
): string | undefined {
  const salt = Buffer.from(`mnemonic${BIP39_PASSPHRASE}`, "utf8");
  const hex = (b: Buffer | undefined) => b?.toString("hex") ?? "(missing)";
  try {
    for (const [i, [mnemonic, seed]] of vectors.entries()) {
      const [got] = derive([Buffer.from(mnemonic, "utf8")], [salt], 2048);
      if (hex(got) !== seed) return `BIP-39 vector ${i + 1} alone gave ${hex(got).slice(0, 16)}…`;
    }
    const sizes = [...new Set([2, 3, lanes - 1, lanes, lanes + 1, 2 * lanes + 1])].filter((n) => n > 1);
    for (const size of sizes) {
      // Each batch starts at another vector, so every vector sits in several lanes.
      const picked = Array.from(
        { length: size },
        (_, k) => vectors[(k + size) % vectors.length] as Vectors[0],
      );
      const got = derive(
        picked.map(([m]) => Buffer.from(m, "utf8")),
        picked.map(() => salt),
        2048,
      );
      const bad = picked.findIndex(([, seed], k) => hex(got[k]) !== seed);
      if (got.length !== size) return `a batch of ${size} gave ${got.length} seeds`;
      if (bad >= 0) return `BIP-39 vectors in a batch of ${size} (${lanes} lanes): seed ${bad + 1} differs`;
    }
    const n = lanes + 1;
    const passwords = Array.from({ length: n }, (_, k) =>
      randomBytes([0, 12, 64, 127, 128, 129, 200][k % 7] as number),
    );
    const salts = Array.from({ length: n }, (_, k) => randomBytes([8, 0, 40, 120, 130][k % 5] as number));
    const got = derive(passwords, salts, 2048);
    for (let k = 0; k < n; k++) {
      const expected = pbkdf2Sync(passwords[k] as Buffer, salts[k] as Buffer, 2048, 64, "sha512");
      if (hex(got[k]) !== expected.toString("hex"))
        return `random input ${k + 1} of ${n} differs from node:crypto's pbkdf2Sync`;
    }
  } catch (e) {
    return `it threw: ${e instanceof Error ? e.message : String(e)}`;
  }
  return undefined;
}

/**
 * The addon, capped at `maxLanes` (tests run every path the CPU has), if it loads and passes its
 * self-test; else why not. LATCHKEY_PBKDF2_SELFTEST_CORRUPT=1 (tests only) spoils one expected seed, to
 * see a failing self-test turn the addon off.
 */
export function tryNativePbkdf2(maxLanes = 8, vectors: Vectors = expectedVectors()): NativeLoad {
  const require = createRequire(import.meta.url);
  for (const path of ADDON_PATHS) {
    let addon: NativeAddon;
    try {
      addon = require(path) as NativeAddon;
    } catch {
      continue;
    }
    let lanes: number;
    try {
      lanes = addon.lanes(maxLanes);
    } catch (e) {
      return { ok: false, reason: `the native PBKDF2 addon failed to start: ${String(e)}` };
    }
    const derive: SeedBackend["derive"] = (passwords, salts, iterations) =>
      addon.pbkdf2Sha512(passwords, salts, iterations, lanes);
    const failure = pbkdf2SelfTest(derive, lanes, vectors);
    if (failure) return { ok: false, reason: `the native PBKDF2 addon failed its self-test: ${failure}` };
    return { ok: true, backend: { name: "native", lanes, derive } };
  }
  return { ok: false, reason: NOT_LOADED };
}

function expectedVectors(): Vectors {
  if (process.env.LATCHKEY_PBKDF2_SELFTEST_CORRUPT !== "1") return BIP39_VECTORS;
  const [[mnemonic, seed], ...rest] = BIP39_VECTORS as [Vectors[0], ...Vectors];
  return [[mnemonic, `${seed.slice(0, -1)}${seed.endsWith("0") ? "1" : "0"}`], ...rest];
}

/** The addon if it loads and passes its self-test (tryNativePbkdf2), else undefined. */
export function loadNativePbkdf2(maxLanes = 8): SeedBackend | undefined {
  const load = tryNativePbkdf2(maxLanes);
  return load.ok ? load.backend : undefined;
}

/** node:crypto's PBKDF2 (the fallback, and the reference the addon is tested against). */
export function nodePbkdf2(): SeedBackend {
  return nodeBackend;
}

let chosen: SeedBackend | undefined;
let fallbackReason: string | undefined;

/** The backend in use, chosen on first use: the addon unless it cannot load, fails its self-test or is turned off. */
export function seedBackend(): SeedBackend {
  if (!chosen) {
    const load: NativeLoad =
      process.env.LATCHKEY_PBKDF2 === "node" ? { ok: false, reason: NOT_LOADED } : tryNativePbkdf2();
    chosen = load.ok ? load.backend : nodeBackend;
    fallbackReason = load.ok ? undefined : load.reason;
  }
  return chosen;
}

/** Why node:crypto computes seeds ("the native PBKDF2 addon is not loaded", "… failed its self-test: …"). */
export function seedFallbackReason(): string | undefined {
  seedBackend();
  return fallbackReason;
}

/**
 * /healthz's `pbkdf2`: "native" or "node:crypto", and "node:crypto (addon failed its self-test: …)" where
 * the addon loaded but was refused.
 */
export function seedBackendLabel(): string {
  const { name } = seedBackend();
  const refused = fallbackReason?.startsWith("the native PBKDF2 addon failed")
    ? fallbackReason.replace("the native PBKDF2 addon", "addon")
    : undefined;
  return refused ? `${name} (${refused})` : name;
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
