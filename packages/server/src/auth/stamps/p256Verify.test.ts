import { createHash } from "node:crypto";
import { p256 } from "@noble/curves/nist";
import { describe, expect, it } from "vitest";
import { verifyP256Der } from "./p256Verify";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function stamp(body: string, privateKey = p256.utils.randomPrivateKey()) {
  const digest = createHash("sha256").update(body).digest();
  const sig = p256.sign(digest, privateKey, { lowS: true, prehash: false });
  return { publicKey: hex(p256.getPublicKey(privateKey, true)), signature: sig.toDERHex() };
}

/** A DER ECDSA signature with the given r and s (each a short positive integer). */
function der(r: number[], s: number[]): string {
  const int = (v: number[]) => [0x02, v.length, ...v];
  const seq = [...int(r), ...int(s)];
  return hex(new Uint8Array([0x30, seq.length, ...seq]));
}

describe("verifyP256Der (on libuv's thread pool)", () => {
  const body = JSON.stringify({ organizationId: "org", timestampMs: "1" });

  it("accepts the signature over the exact bytes, as a string or a Buffer", async () => {
    const s = stamp(body);
    expect(await verifyP256Der(body, s.publicKey, s.signature)).toBe(true);
    expect(await verifyP256Der(Buffer.from(body), s.publicKey, s.signature)).toBe(true);
  });

  it("refuses another body, another key, and a signature that is not DER", async () => {
    const s = stamp(body);
    expect(await verifyP256Der(`${body} `, s.publicKey, s.signature)).toBe(false);
    expect(await verifyP256Der(body, stamp(body).publicKey, s.signature)).toBe(false);
    expect(await verifyP256Der(body, s.publicKey, "00")).toBe(false);
    expect(await verifyP256Der(body, s.publicKey, "")).toBe(false);
  });

  it("refuses r = 0 and s = 0, which no signature can have", async () => {
    const s = stamp(body);
    expect(await verifyP256Der(body, s.publicKey, der([0], [1]))).toBe(false);
    expect(await verifyP256Der(body, s.publicKey, der([1], [0]))).toBe(false);
  });

  it("refuses a public key that is not a point on the curve", async () => {
    const s = stamp(body);
    // x = 4 has no y on P-256 (the input is checked to be off the curve); a 66-digit key that is not a
    // compressed point at all either.
    const offCurve = `02${"0".repeat(63)}4`;
    expect(() => p256.Point.fromHex(offCurve)).toThrow();
    expect(await verifyP256Der(body, offCurve, s.signature)).toBe(false);
    expect(await verifyP256Der(body, `04${s.publicKey.slice(2)}`, s.signature)).toBe(false);
  });

  it("answers many at once, each for its own body", async () => {
    const bodies = Array.from({ length: 64 }, (_, i) => JSON.stringify({ i }));
    const stamps = bodies.map((b) => stamp(b));
    const results = await Promise.all(
      bodies.map((b, i) => {
        const own = stamps[i] as { publicKey: string; signature: string };
        const next = stamps[(i + 1) % bodies.length] as { publicKey: string; signature: string };
        // Even bodies carry their own stamp, odd ones the next body's.
        return i % 2 === 0
          ? verifyP256Der(b, own.publicKey, own.signature)
          : verifyP256Der(b, next.publicKey, next.signature);
      }),
    );
    expect(results).toEqual(bodies.map((_, i) => i % 2 === 0));
  });
});
