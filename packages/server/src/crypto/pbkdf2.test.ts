import { execFileSync } from "node:child_process";
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScriptInFreshNode } from "../../test/helpers";
import { BIP39_VECTORS } from "./bip39Vectors";
import {
  bip39Seeds,
  loadNativePbkdf2,
  nodePbkdf2,
  pbkdf2SelfTest,
  type SeedBackend,
  seedBackend,
  seedBackendLabel,
  seedFallbackReason,
  tryNativePbkdf2,
} from "./pbkdf2";

// BIP-39's reference vectors (trezor/python-mnemonic vectors.json, passphrase "TREZOR"): the addon's
// load-time self-test checks the same ones.
const VECTORS = BIP39_VECTORS;

const native = loadNativePbkdf2();
// Every path this CPU has: one seed at a time, 4 lanes (AVX2) and 8 lanes (AVX-512), each where present.
const nativePaths: [string, SeedBackend | undefined][] = [1, 4, 8].map((cap) => {
  const b = loadNativePbkdf2(cap);
  return [`native, ${cap} lane${cap > 1 ? "s" : ""}`, b && b.lanes === cap ? b : undefined];
});
const bytes = (s: string) => Buffer.from(s, "utf8");

describe.each([["node:crypto", nodePbkdf2()] as [string, SeedBackend | undefined], ...nativePaths])(
  "PBKDF2-HMAC-SHA512 by %s",
  (_name, backend) => {
    // The addon is optional, and a CPU without AVX2 or AVX-512 has no lanes: those paths are skipped.
    it.runIf(backend)("gives BIP-39's reference seeds, one at a time and all in one call", () => {
      const b = backend as SeedBackend;
      for (const [mnemonic, seed] of VECTORS) {
        expect(b.derive([bytes(mnemonic)], [bytes("mnemonicTREZOR")], 2048)[0]?.toString("hex")).toBe(seed);
      }
      const all = b.derive(
        VECTORS.map(([m]) => bytes(m)),
        VECTORS.map(() => bytes("mnemonicTREZOR")),
        2048,
      );
      expect(all.map((s) => s.toString("hex"))).toEqual(VECTORS.map(([, s]) => s));
    });

    it.runIf(backend)("agrees with node:crypto on batches of 0-20 random passwords, salts and counts", () => {
      const b = backend as SeedBackend;
      for (let n = 0; n <= 20; n++) {
        // Passwords cross the 128-byte block (a longer key is hashed first); salts of any length.
        const passwords = Array.from({ length: n }, (_, i) => randomBytes((i * 37 + n * 11) % 300));
        const salts = Array.from({ length: n }, (_, i) => randomBytes((i * 23 + n) % 200));
        const iterations = [1, 2, 3, 17, 2048][n % 5] as number;
        const out = b.derive(passwords, salts, iterations);
        expect(out).toHaveLength(n);
        out.forEach((seed, i) => {
          const expected = pbkdf2Sync(passwords[i] as Buffer, salts[i] as Buffer, iterations, 64, "sha512");
          expect(seed.toString("hex")).toBe(expected.toString("hex"));
        });
      }
    });
  },
);

describe.runIf(native)("the native addon", () => {
  it("refuses bad arguments with a TypeError, not a crash", () => {
    const addon = createRequire(import.meta.url)("../../native/build/pbkdf2_sha512.node") as {
      pbkdf2Sha512(...args: unknown[]): Buffer[];
    };
    const one = [bytes("p")];
    expect(() => addon.pbkdf2Sha512()).toThrow(TypeError);
    expect(() => addon.pbkdf2Sha512("p", one, 1)).toThrow(/passwords must be an array/);
    expect(() => addon.pbkdf2Sha512(one, [], 1)).toThrow(/same length/);
    expect(() => addon.pbkdf2Sha512(["p"], one, 1)).toThrow(/Uint8Arrays/);
    expect(() => addon.pbkdf2Sha512(one, one, 0)).toThrow(/positive integer/);
    expect(() => addon.pbkdf2Sha512(one, one, "2048")).toThrow(/positive integer/);
  });
});

describe("the load-time self-test", () => {
  it("passes node:crypto, and catches a path that is wrong for one lane, a partial batch or long inputs", () => {
    const node = nodePbkdf2();
    expect(pbkdf2SelfTest(node.derive, 8)).toBeUndefined();
    // Wrong only in the 3rd lane of a batch (as a mis-detected or miscompiled lane would be).
    const badLane: SeedBackend["derive"] = (p, s, c) =>
      node.derive(p, s, c).map((seed, k) => (p.length > 1 && k === 2 ? Buffer.alloc(64) : seed));
    expect(pbkdf2SelfTest(badLane, 8)).toMatch(/batch of 3 \(8 lanes\): seed 3 differs/);
    // Wrong only when a batch does not fill the lanes.
    const badPartial: SeedBackend["derive"] = (p, s, c) =>
      p.length > 1 && p.length < 4 ? node.derive(p.slice(1), s.slice(1), c) : node.derive(p, s, c);
    expect(pbkdf2SelfTest(badPartial, 4)).toMatch(/a batch of 2 gave 1 seeds/);
    // Wrong only for passwords longer than a block (not in BIP-39's vectors): the random sample sees it.
    const badLong: SeedBackend["derive"] = (p, s, c) =>
      node.derive(p, s, c).map((seed, k) => ((p[k]?.length ?? 0) > 128 ? Buffer.alloc(64) : seed));
    expect(pbkdf2SelfTest(badLong, 8)).toMatch(/random input \d+ of 9 differs from node:crypto/);
    const throws: SeedBackend["derive"] = () => {
      throw new Error("boom");
    };
    expect(pbkdf2SelfTest(throws, 1)).toBe("it threw: boom");
  });

  it.runIf(native)(
    "passes the addon through every width this CPU has, and refuses it on a wrong vector",
    () => {
      for (const cap of [1, 4, 8]) expect(tryNativePbkdf2(cap)).toMatchObject({ ok: true });
      const wrong = BIP39_VECTORS.map(
        ([m, s], i) => [m, i === 4 ? s.replace(/^./, s[0] === "0" ? "1" : "0") : s] as const,
      );
      expect(tryNativePbkdf2(8, wrong)).toEqual({
        ok: false,
        reason: "the native PBKDF2 addon failed its self-test: BIP-39 vector 5 alone gave dd48c104698c30cf…",
      });
    },
  );

  it.runIf(native)(
    "a failing self-test leaves seeds to node:crypto, and the start-up line and /healthz say why",
    () => {
      const script = `
      const m = await import("./packages/server/src/crypto/pbkdf2.ts");
      const [seed] = m.bip39Seeds(["zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"], "TREZOR");
      console.log(JSON.stringify({ backend: m.seedBackend().name, reason: m.seedFallbackReason(),
        label: m.seedBackendLabel(), seed: seed.toString("hex") }));
    `;
      const out = runScriptInFreshNode<{ backend: string; reason: string; label: string; seed: string }>(
        script,
        {
          LATCHKEY_PBKDF2: "",
          LATCHKEY_PBKDF2_SELFTEST_CORRUPT: "1",
        },
      );
      expect(out).toEqual({
        backend: "node:crypto",
        reason: expect.stringMatching(
          /^the native PBKDF2 addon failed its self-test: BIP-39 vector 1 alone gave c55257c3/,
        ),
        label: expect.stringMatching(/^node:crypto \(addon failed its self-test: BIP-39 vector 1 alone/),
        seed: BIP39_VECTORS[3]?.[1],
      });
    },
  );

  it("this process's choice and what it reports agree", () => {
    const forcedHere = process.env.LATCHKEY_PBKDF2 === "node";
    expect(seedBackendLabel()).toBe(seedBackend().name);
    expect(seedFallbackReason()).toBe(
      native && !forcedHere ? undefined : "the native PBKDF2 addon is not loaded",
    );
  });
});

describe("choosing the implementation", () => {
  it("uses the addon when it loads, and node:crypto when LATCHKEY_PBKDF2=node forces the fallback", () => {
    // This process is forced too under `npm run test:fallback`.
    const forcedHere = process.env.LATCHKEY_PBKDF2 === "node";
    expect(seedBackend().name).toBe(native && !forcedHere ? "native" : "node:crypto");
    const script = `
      const { seedBackend } = await import("./packages/server/src/crypto/pbkdf2.ts");
      const { deriveAccountsBatch } = await import("./packages/server/src/crypto/wallet.ts");
      const m = ["abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong", "legal winner thank year wave sausage worth useful legal winner thank yellow"];
      const accounts = deriveAccountsBatch(m).map((a) => a.map((x) => x.address));
      console.log(JSON.stringify({ backend: seedBackend().name, accounts }));
    `;
    const run = (env: Record<string, string>) =>
      runScriptInFreshNode<{ backend: string; accounts: string[][] }>(script, env);
    const forced = run({ LATCHKEY_PBKDF2: "node" });
    expect(forced.backend).toBe("node:crypto");
    expect(forced.accounts[0]).toEqual([
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
    ]);
    const chosen = run({ LATCHKEY_PBKDF2: "" });
    expect(chosen.backend).toBe(native ? "native" : "node:crypto");
    expect(chosen.accounts).toEqual(forced.accounts);
  });

  it("normalises mnemonics and passphrases to NFKD, as BIP-39 says", () => {
    // "é" composed (U+00E9) and decomposed (e + U+0301) are one passphrase.
    const [a] = bip39Seeds(["caf\u00e9 words"], "p\u00e4ss");
    const [b] = bip39Seeds(["cafe\u0301 words"], "pa\u0308ss");
    expect(a?.toString("hex")).toBe(b?.toString("hex"));
    expect(a?.toString("hex")).toBe(
      pbkdf2Sync("cafe\u0301 words", "mnemonicpa\u0308ss", 2048, 64, "sha512").toString("hex"),
    );
  });

  it("the build script never fails an install: without a compiler it says so and keeps what was built", () => {
    const script = fileURLToPath(new URL("../../native/build.mjs", import.meta.url));
    const addon = fileURLToPath(new URL("../../native/build/pbkdf2_sha512.node", import.meta.url));
    const before = existsSync(addon) ? statSync(addon).mtimeMs : undefined;
    const out = execFileSync(process.execPath, [script], {
      encoding: "utf8",
      env: { ...process.env, LATCHKEY_NATIVE_BUILD: "force", CC: "/nonexistent/cc" },
    });
    expect(out).toMatch(/native PBKDF2 addon not built\b.*node:crypto computes seeds/);
    expect(existsSync(addon) ? statSync(addon).mtimeMs : undefined).toBe(before);
  });
});
