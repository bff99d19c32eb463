import { createHash } from "node:crypto";
import { secp256k1 as noble } from "@noble/curves/secp256k1";
import { describe, expect, it } from "vitest";
import { runScriptInFreshNode } from "../../test/helpers";
import { loadNativeSecp256k1, nobleSecp256k1Impl, type Secp256k1, secp256k1Impl } from "./secp256k1";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const sha256 = (s: string | Buffer) => new Uint8Array(createHash("sha256").update(s).digest());

// RFC 6979 secp256k1 vectors (SHA-256 digests of the messages), as published with python-ecdsa and
// Trezor's firmware: r ‖ s (low s) and the recovery id.
const VECTORS: [key: string, message: string, signature: string, recovery: number][] = [
  [
    "0000000000000000000000000000000000000000000000000000000000000001",
    "Satoshi Nakamoto",
    "934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d82442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5",
    1,
  ],
  [
    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
    "Satoshi Nakamoto",
    "fd567d121db66e382991534ada77a6bd3106f0a1098c231e47993447cd6af2d06b39cd0eb1bc8603e159ef5c20a5c8ad685a45b06ce9bebed3f153d10d93bed5",
    0,
  ],
  [
    "0000000000000000000000000000000000000000000000000000000000000001",
    "All those moments will be lost in time, like tears in rain. Time to die...",
    "8600dbd41e348fe5c9465ab92d23e3db8b98b873beecd930736488696438cb6b547fe64427496db33bf66019dacbf0039c04199abb0122918601db38a72cfc21",
    0,
  ],
  [
    "69ec59eaa1f4f2e36b639716b7c30ca86d9a5375c7b38d8918bd9c0ebc80ba64",
    "Computer science is no more about computers than astronomy is about telescopes.",
    "7186363571d65e084e7f02b0b77c3ec44fb1b257dee26274c38c928986fea45d0de0b38e06807e46bda1f1e293f4f6323e854c86d58abdd00c46c16441085df6",
    0,
  ],
];

const native = loadNativeSecp256k1();
const backends: [string, Secp256k1 | undefined][] = [
  ["noble", nobleSecp256k1Impl()],
  ["libsecp256k1", native],
];

describe.each(backends)("secp256k1 (%s)", (name, impl) => {
  // The native addon is optional: where it cannot load, its half is skipped and the fallback is used.
  it.runIf(impl)("signs the RFC 6979 vectors exactly", () => {
    const s = impl as Secp256k1;
    expect(s.backend).toBe(name);
    for (const [key, message, signature, recovery] of VECTORS) {
      const sig = s.sign(sha256(message), Buffer.from(key, "hex"));
      expect(hex(sig.r) + hex(sig.s)).toBe(signature);
      expect(sig.recovery).toBe(recovery);
    }
  });
});

describe.runIf(native)("libsecp256k1 and noble agree byte for byte", () => {
  it("on 500 keys and digests: r, s (low), recovery id, and public keys both ways", () => {
    const a = native as Secp256k1;
    const b = nobleSecp256k1Impl();
    const halfN = noble.CURVE.n / 2n;
    for (let i = 0; i < 500; i++) {
      const key = sha256(`key ${i}`);
      const digest = sha256(`digest ${i}`);
      const x = a.sign(digest, key);
      const y = b.sign(digest, key);
      expect([hex(x.r), hex(x.s), x.recovery]).toEqual([hex(y.r), hex(y.s), y.recovery]);
      expect(BigInt(`0x${hex(x.s)}`) <= halfN).toBe(true);
      expect(hex(a.publicKey(key, true))).toBe(hex(b.publicKey(key, true)));
      expect(hex(a.publicKey(key, false))).toBe(hex(b.publicKey(key, false)));
      // And the signature recovers to the key's own public key.
      const recovered = new noble.Signature(BigInt(`0x${hex(x.r)}`), BigInt(`0x${hex(x.s)}`))
        .addRecoveryBit(x.recovery)
        .recoverPublicKey(digest)
        .toRawBytes(true);
      expect(hex(recovered)).toBe(hex(a.publicKey(key, true)));
    }
  });
});

describe("choosing the implementation", () => {
  it("uses libsecp256k1 when it loads, and noble when LATCHKEY_SECP256K1=noble forces the fallback", () => {
    // This process is forced too under `npm run test:fallback`.
    const forcedHere = process.env.LATCHKEY_SECP256K1 === "noble";
    expect(secp256k1Impl().backend).toBe(native && !forcedHere ? "libsecp256k1" : "noble");
    const script = `
      const { secp256k1Impl } = await import("./packages/server/src/crypto/secp256k1.ts");
      const { signSecp256k1 } = await import("./packages/server/src/crypto/wallet.ts");
      const digest = new Uint8Array(32).fill(7), key = new Uint8Array(32).fill(9);
      console.log(JSON.stringify({ backend: secp256k1Impl().backend, sig: signSecp256k1(digest, key) }));
    `;
    const run = (env: Record<string, string>) =>
      runScriptInFreshNode<{ backend: string; sig: unknown }>(script, env);
    const forced = run({ LATCHKEY_SECP256K1: "noble" });
    expect(forced.backend).toBe("noble");
    const chosen = run({ LATCHKEY_SECP256K1: "" });
    expect(chosen.backend).toBe(native ? "libsecp256k1" : "noble");
    expect(chosen.sig).toEqual(forced.sig);
  });
});
