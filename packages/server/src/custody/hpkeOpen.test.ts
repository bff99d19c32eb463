import { randomBytes } from "node:crypto";
import { generateP256PrivateKey, hpkeSealBase, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { openUserShare, sealServiceShare, sealUserShare, UserShareError } from "@latchkey/protocol/custody";
import { describe, expect, it } from "vitest";
import { hpkeOpenP256, openBase, p256Ecdh } from "./hpkeOpen";

const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * RFC 9180 A.3's inputs (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256) under AES-256-GCM, the bundle suite:
 * the first ciphertext as protocol's hpke.test.ts pins it (checked there against @hpke/core and an
 * independent key schedule).
 */
const A3 = {
  info: "4f6465206f6e2061204772656369616e2055726e",
  pkRm: "04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0",
  skRm: "f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2",
  enc: "04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c403ce65c9bfcb9382657222d18c4",
  pt: "4265617574792069732074727574682c20747275746820626561757479",
  aad0: "436f756e742d30",
  ct0: "518c46e6810fbc55362f7d5995b0f54339d93664ca44e5c74d0f289c4f7983b4781b193de04ad3319f177244de",
};

describe("hpkeOpenP256: the service's synchronous HPKE open", () => {
  const vector = () => ({
    enc: hex(A3.enc),
    ciphertext: hex(A3.ct0),
    recipientPrivateKey: p256Ecdh(hex(A3.skRm)),
    recipientPublicKey: hex(A3.pkRm),
    info: Buffer.from(A3.info, "hex").toString("latin1"),
    aad: hex(A3.aad0),
  });

  it("opens RFC 9180 A.3's first ciphertext under AES-256-GCM", () => {
    expect(toHex(openBase(vector()))).toBe(A3.pt);
  });

  it("refuses a changed byte of the ciphertext, the tag, the aad, the info or enc", () => {
    const flip = (b: Uint8Array, i: number) => {
      const c = b.slice();
      c[i] = (c[i] ?? 0) ^ 1;
      return c;
    };
    const v = vector();
    expect(() => openBase({ ...v, ciphertext: flip(v.ciphertext, 0) })).toThrow();
    expect(() => openBase({ ...v, ciphertext: flip(v.ciphertext, v.ciphertext.length - 1) })).toThrow();
    expect(() => openBase({ ...v, aad: flip(v.aad, 0) })).toThrow();
    expect(() => openBase({ ...v, info: `${v.info}.` })).toThrow();
    expect(() => openBase({ ...v, enc: flip(v.enc, 64) })).toThrow(); // off the curve, or another point
    expect(() => openBase({ ...v, enc: v.enc.subarray(0, 33) })).toThrow(TypeError);
    expect(() => openBase({ ...v, ciphertext: v.ciphertext.subarray(0, 15) })).toThrow(TypeError);
  });

  it("opens what @hpke/core seals: user shares bound to their body, service shares to their organisation", async () => {
    const scalar = generateP256PrivateKey();
    const publicKey = toHex(p256PublicKeyFromPrivate(scalar, false));
    const shareKey = { privateKey: p256Ecdh(scalar), publicKey };
    for (const length of [2, 86, 700]) {
      const userShare = new Uint8Array(randomBytes(length));
      const body = JSON.stringify({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", n: length });
      const sealed = await sealUserShare({ userShare, shareKey: publicKey, body });
      expect(await openUserShare({ sealed, body, shareKey, hpkeOpen: hpkeOpenP256 })).toEqual(userShare);
      await expect(
        openUserShare({ sealed, body: `${body} `, shareKey, hpkeOpen: hpkeOpenP256 }),
      ).rejects.toThrow(UserShareError);
    }
    // A service share is sealed under another info: it never opens as a user share.
    const serviceSealed = await sealServiceShare({
      serviceShare: new Uint8Array(randomBytes(40)),
      shareKey: publicKey,
      organizationId: "org",
    });
    await expect(
      openUserShare({ sealed: serviceSealed, body: "create:org", shareKey, hpkeOpen: hpkeOpenP256 }),
    ).rejects.toThrow(UserShareError);
    // Another recipient's key does not open it.
    const other = { privateKey: p256Ecdh(generateP256PrivateKey()), publicKey };
    const sealed = await sealUserShare({ userShare: utf8("share"), shareKey: publicKey, body: "b" });
    await expect(
      openUserShare({ sealed, body: "b", shareKey: other, hpkeOpen: hpkeOpenP256 }),
    ).rejects.toThrow(UserShareError);
  });

  it("refuses points that are not uncompressed P-256 and a ciphertext shorter than its tag, saying so", () => {
    const v = vector();
    const bad = (patch: Partial<ReturnType<typeof vector>>, message: string) =>
      expect(() => openBase({ ...v, ...patch })).toThrow(message);
    const points = "enc and the recipient key must be uncompressed P-256 points";
    const withPrefix = (b: Uint8Array, p: number) => Uint8Array.of(p, ...b.subarray(1));
    bad({ enc: v.enc.subarray(0, 64) }, points);
    bad({ enc: withPrefix(v.enc, 0x02) }, points);
    bad({ recipientPublicKey: v.recipientPublicKey.subarray(0, 33) }, points);
    bad({ recipientPublicKey: withPrefix(v.recipientPublicKey, 0x03) }, points);
    bad({ ciphertext: v.ciphertext.subarray(0, 15) }, "the ciphertext is shorter than its tag");
  });

  it("opens an empty plaintext (a ciphertext that is only its tag)", async () => {
    const scalar = generateP256PrivateKey();
    const publicKey = p256PublicKeyFromPrivate(scalar, false);
    const { enc, ciphertext } = await hpkeSealBase({
      plaintext: new Uint8Array(),
      recipientPublicKey: publicKey,
      info: "i",
      aad: utf8("a"),
    });
    expect(ciphertext.length).toBe(16);
    const opened = hpkeOpenP256({
      enc,
      ciphertext,
      recipientPrivateKey: p256Ecdh(scalar),
      recipientPublicKey: publicKey,
      info: "i",
      aad: utf8("a"),
    });
    expect(opened).toEqual(new Uint8Array());
  });
});
