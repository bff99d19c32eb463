import { execFileSync, spawnSync } from "node:child_process";
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BIP39_PASSPHRASE, BIP39_VECTORS } from "../src/crypto/bip39Vectors";

// The PBKDF2 addon's C core (native/pbkdf2_sha512.c, LK_CORE_ONLY: no N-API) under AddressSanitizer and
// UndefinedBehaviorSanitizer, in a standalone harness (test/native/pbkdf2_kat.c) that runs BIP-39's vectors
// and a random sample checked against node:crypto through every lane path this CPU has, in full batches,
// partial batches and with remainders. Skipped only where there is no gcc or no OpenSSL to link.
const harness = fileURLToPath(new URL("native/pbkdf2_kat.c", import.meta.url));

function hasGcc(): boolean {
  try {
    execFileSync("gcc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const hex = (b: Uint8Array) => (b.length ? Buffer.from(b).toString("hex") : "-");

function cases(): string {
  const salt = Buffer.from(`mnemonic${BIP39_PASSPHRASE}`, "utf8");
  const lines = BIP39_VECTORS.map(([m, seed]) => `${hex(Buffer.from(m, "utf8"))} ${hex(salt)} 2048 ${seed}`);
  // Random passwords (empty, within a block, longer than one: hashed first) and salts, at several counts.
  for (const iterations of [2048, 1, 2, 3, 17]) {
    for (let i = 0; i < (iterations === 2048 ? 12 : 10); i++) {
      const password = randomBytes([0, 1, 31, 64, 127, 128, 129, 300][i % 8] as number);
      const s = randomBytes([0, 4, 16, 111, 112, 200][i % 6] as number);
      const seed = pbkdf2Sync(password, s, iterations, 64, "sha512");
      lines.push(`${hex(password)} ${hex(s)} ${iterations} ${seed.toString("hex")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

describe.skipIf(!hasGcc())("the PBKDF2 addon's C core under ASan and UBSan", () => {
  it("computes every known answer on every lane path with no sanitizer report", () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-kat-"));
    try {
      const bin = join(dir, "pbkdf2_kat");
      execFileSync(
        "gcc",
        [
          "-std=c11",
          "-O1",
          "-g",
          "-Wall",
          "-Wextra",
          "-Werror",
          "-fsanitize=address,undefined",
          "-fno-sanitize-recover=all",
          "-fno-omit-frame-pointer",
          harness,
          "-o",
          bin,
          "-lcrypto",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      const run = spawnSync(bin, [], {
        input: cases(),
        encoding: "utf8",
        env: {
          ...process.env,
          ASAN_OPTIONS: "abort_on_error=0:halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1",
          UBSAN_OPTIONS: "halt_on_error=1:print_stacktrace=1",
        },
      });
      expect(run.stderr).not.toMatch(/AddressSanitizer|LeakSanitizer|runtime error|mismatch/);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^ok \d+ checks \(lanes up to [148]\)\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
