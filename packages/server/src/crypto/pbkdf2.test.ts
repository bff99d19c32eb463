import { execFileSync } from "node:child_process";
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScriptInFreshNode } from "../../test/helpers";
import { bip39Seeds, loadNativePbkdf2, nodePbkdf2, type SeedBackend, seedBackend } from "./pbkdf2";

// BIP-39's reference vectors (trezor/python-mnemonic vectors.json, passphrase "TREZOR").
const VECTORS: [mnemonic: string, seed: string][] = [
  [
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
  ],
  [
    "legal winner thank year wave sausage worth useful legal winner thank yellow",
    "2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607",
  ],
  [
    "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
    "d71de856f81a8acc65e6fc851a38d4d7ec216fd0796d0a6827a3ad6ed5511a30fa280f12eb2e47ed2ac03b5c462a0358d18d69fe4f985ec81778c1b370b652a8",
  ],
  [
    "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
    "ac27495480225222079d7be181583751e86f571027b0497b5b5d11218e0a8a13332572917f0f8e5a589620c6f15b11c61dee327651a14c34e18231052e48c069",
  ],
  [
    "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote",
    "dd48c104698c30cfe2b6142103248622fb7bb0ff692eebb00089b32d22484e1613912f0a5b694407be899ffd31ed3992c456cdf60f5d4564b8ba3f05a69890ad",
  ],
];

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
