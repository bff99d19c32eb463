import { createPublicKey, type KeyObject, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { p256 } from "@noble/curves/nist";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { StampFormatError } from "./errors";
import { fromHex, toHex } from "./hex";
import { generateP256PrivateKey, p256PublicKeyFromPrivate } from "./p256";
import {
  type ApiKeyStamp,
  compactToCanonicalDerP256,
  compactToDerP256,
  decodeStamp,
  derToCompactP256,
  encodeStamp,
  STAMP_HEADER_NAME,
  STAMP_SCHEME,
  signP256Der,
  stampWithPrivateKey,
  verifyApiKeyStamp,
} from "./stamp";

const N = p256.Point.Fn.ORDER;
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

function nodePublicKey(publicKey: Uint8Array): KeyObject {
  const uncompressed = p256.Point.fromBytes(publicKey).toBytes(false);
  return createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: Buffer.from(uncompressed.subarray(1, 33)).toString("base64url"),
      y: Buffer.from(uncompressed.subarray(33)).toString("base64url"),
    },
    format: "jwk",
  });
}

function nodePrivateKey(privateKey: Uint8Array) {
  const pub = p256PublicKeyFromPrivate(privateKey, false);
  return {
    key: {
      kty: "EC",
      crv: "P-256",
      d: Buffer.from(privateKey).toString("base64url"),
      x: Buffer.from(pub.subarray(1, 33)).toString("base64url"),
      y: Buffer.from(pub.subarray(33)).toString("base64url"),
    },
    format: "jwk" as const,
  };
}

describe("API-key stamps", () => {
  const privateKey = generateP256PrivateKey();
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    timestampMs: String(Date.now()),
    organizationId: "org",
    parameters: { note: "ünïcødé ✓ 🔑" },
  });

  it("stamp → decode → verify, with the exact header shape", () => {
    const header = stampWithPrivateKey(body, privateKey);
    expect(header.stampHeaderName).toBe(STAMP_HEADER_NAME);
    expect(header.stampHeaderValue).toMatch(/^[A-Za-z0-9_-]+$/);
    const stamp = decodeStamp(header.stampHeaderValue);
    expect(stamp.publicKey).toBe(toHex(p256PublicKeyFromPrivate(privateKey, true)));
    expect(stamp.publicKey).toHaveLength(66);
    expect(stamp.scheme).toBe(STAMP_SCHEME);
    expect(verifyApiKeyStamp(body, stamp)).toBe(true);
    // Member order is part of the format other implementations produce.
    const json = Buffer.from(header.stampHeaderValue, "base64url").toString("utf8");
    expect(json).toBe(
      `{"publicKey":"${stamp.publicKey}","scheme":"${STAMP_SCHEME}","signature":"${stamp.signature}"}`,
    );
    expect(encodeStamp(stamp)).toBe(header.stampHeaderValue);
  });

  it("is deterministic (RFC 6979) and low-s", () => {
    expect(stampWithPrivateKey(body, privateKey)).toEqual(stampWithPrivateKey(body, privateKey));
    for (let i = 0; i < 50; i++) {
      const der = signP256Der(crypto.getRandomValues(new Uint8Array(40)), generateP256PrivateKey());
      const s = p256.Signature.fromBytes(der, "der").s;
      expect(s <= N / 2n).toBe(true);
    }
  });

  it("matches the RFC 6979 A.2.5 P-256/SHA-256 'sample' signature (s normalised to low-s)", () => {
    const x = fromHex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721");
    const r = "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716";
    const highS = "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8";
    const lowS = (N - BigInt(`0x${highS}`)).toString(16).padStart(64, "0");
    const der = signP256Der(new TextEncoder().encode("sample"), x);
    expect(toHex(derToCompactP256(der))).toBe(r + lowS);
    expect(toHex(p256PublicKeyFromPrivate(x, false))).toBe(
      "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
    );
    // The RFC's own high-s signature is valid too: browsers (WebCrypto) do not normalise s.
    const stamp: ApiKeyStamp = {
      publicKey: toHex(p256PublicKeyFromPrivate(x, true)),
      scheme: STAMP_SCHEME,
      signature: toHex(compactToDerP256(fromHex(r + highS))),
    };
    expect(stamp.signature).toBe(`3046022100${r}022100${highS}`);
    expect(verifyApiKeyStamp("sample", stamp)).toBe(true);
  });

  it("rejects a tampered body, another key, a flipped signature bit or a wrong scheme", () => {
    const stamp = decodeStamp(stampWithPrivateKey(body, privateKey).stampHeaderValue);
    expect(verifyApiKeyStamp(`${body} `, stamp)).toBe(false);
    expect(verifyApiKeyStamp(body.replace("org", "orh"), stamp)).toBe(false);
    const otherKey = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), true));
    expect(verifyApiKeyStamp(body, { ...stamp, publicKey: otherKey })).toBe(false);
    const sig = fromHex(stamp.signature);
    sig[sig.length - 1]! ^= 1;
    expect(verifyApiKeyStamp(body, { ...stamp, signature: toHex(sig) })).toBe(false);
    expect(
      verifyApiKeyStamp(body, { ...stamp, scheme: "SIGNATURE_SCHEME_OTHER" as typeof STAMP_SCHEME }),
    ).toBe(false);
    expect(verifyApiKeyStamp(body, { ...stamp, publicKey: `02${"00".repeat(32)}` })).toBe(false);
    expect(verifyApiKeyStamp(body, { ...stamp, signature: "zz" })).toBe(false);
  });

  it("cross-checks with node:crypto in both directions", () => {
    for (let i = 0; i < 20; i++) {
      const key = generateP256PrivateKey();
      const msg = `${body}#${i}`;
      const stamp = decodeStamp(stampWithPrivateKey(msg, key).stampHeaderValue);
      const publicKey = nodePublicKey(fromHex(stamp.publicKey));
      expect(
        nodeVerify(
          "sha256",
          Buffer.from(msg, "utf8"),
          { key: publicKey, dsaEncoding: "der" },
          fromHex(stamp.signature),
        ),
      ).toBe(true);
      // OpenSSL signatures are randomised and about half are high-s; ours must accept them.
      const nodeSig = nodeSign("sha256", Buffer.from(msg, "utf8"), {
        ...nodePrivateKey(key),
        dsaEncoding: "der",
      });
      expect(verifyApiKeyStamp(msg, { ...stamp, signature: nodeSig.toString("hex") })).toBe(true);
    }
  });

  it("verifies browser-style (WebCrypto, compact) signatures after compactToDerP256", async () => {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
    const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
    const compact = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        pair.privateKey,
        new TextEncoder().encode(body),
      ),
    );
    const stamp: ApiKeyStamp = {
      publicKey: toHex(p256.Point.fromBytes(publicKey).toBytes(true)),
      scheme: STAMP_SCHEME,
      signature: toHex(compactToDerP256(compact)),
    };
    // Any s verifies as a signature; the stamp a browser sends carries the canonical (low-s) DER.
    expect(verifyApiKeyStamp(body, stamp)).toBe(true);
    const canonical = { ...stamp, signature: toHex(compactToCanonicalDerP256(compact)) };
    expect(verifyApiKeyStamp(body, decodeStamp(encodeStamp(canonical)))).toBe(true);
  });

  it("compactToCanonicalDerP256 mirrors a high s to n - s, and keeps a low s as is", () => {
    const r = `7f${"11".repeat(31)}`;
    const lowS = `01${"22".repeat(31)}`;
    const highS = (N - BigInt(`0x${lowS}`)).toString(16).padStart(64, "0");
    expect(toHex(compactToCanonicalDerP256(fromHex(r + highS)))).toBe(
      toHex(compactToDerP256(fromHex(r + lowS))),
    );
    expect(toHex(compactToCanonicalDerP256(fromHex(r + lowS)))).toBe(
      toHex(compactToDerP256(fromHex(r + lowS))),
    );
  });
});

describe("decodeStamp", () => {
  const good = decodeStamp(stampWithPrivateKey("{}", generateP256PrivateKey()).stampHeaderValue);
  const withFields = (fields: Record<string, unknown>) => b64url(JSON.stringify({ ...good, ...fields }));

  it("refuses every other encoding of the same stamp (F1): one signed body, one stamp", () => {
    const header = encodeStamp(good);
    expect(decodeStamp(header)).toEqual(good);
    const json = JSON.stringify(good);
    const highS = (() => {
      const sig = p256.Signature.fromBytes(fromHex(good.signature), "der");
      return toHex(new p256.Signature(sig.r, N - sig.s).toBytes("der"));
    })();
    const aliases: Array<[string, string]> = [
      ["a trailing =", `${header}=`],
      ["padding to a multiple of 4", header + "=".repeat((4 - (header.length % 4)) % 4 || 4).slice(0, 2)],
      [
        "upper-case hex",
        withFields({ publicKey: good.publicKey.toUpperCase(), signature: good.signature.toUpperCase() }),
      ],
      ["upper-case signature hex", withFields({ signature: good.signature.toUpperCase() })],
      ["re-spaced JSON", b64url(JSON.stringify(JSON.parse(json), null, 1))],
      [
        "re-ordered JSON",
        b64url(JSON.stringify({ signature: good.signature, publicKey: good.publicKey, scheme: good.scheme })),
      ],
      ["an extra member", withFields({ extra: 1 })],
      ["the high-s signature in upper-case hex", withFields({ signature: highS.toUpperCase() })],
    ];
    for (const [name, alias] of aliases) {
      let error: unknown;
      try {
        decodeStamp(alias);
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(StampFormatError);
      expect((error as StampFormatError).code, name).toBe("STAMP_NOT_CANONICAL");
    }
  });

  it("accepts a high s (WebCrypto and node:crypto do not normalise it); the rest stays canonical", () => {
    const key = generateP256PrivateKey();
    let high = 0;
    for (let i = 0; high < 3 && i < 64; i++) {
      const body = `{"i":${i}}`;
      const der = nodeSign("sha256", Buffer.from(body), { ...nodePrivateKey(key), dsaEncoding: "der" });
      const stamp: ApiKeyStamp = {
        publicKey: toHex(p256PublicKeyFromPrivate(key, true)),
        scheme: STAMP_SCHEME,
        signature: der.toString("hex"),
      };
      const sig = p256.Signature.fromBytes(fromHex(stamp.signature), "der");
      if (!sig.hasHighS()) continue;
      high++;
      expect(decodeStamp(encodeStamp(stamp))).toEqual(stamp);
      expect(verifyApiKeyStamp(body, decodeStamp(encodeStamp(stamp)))).toBe(true);
      // Its mirror, the low-s twin, decodes too: two stamps of one body (the ledger keys on the body).
      const twin = { ...stamp, signature: toHex(new p256.Signature(sig.r, N - sig.s).toBytes("der")) };
      expect(decodeStamp(encodeStamp(twin))).toEqual(twin);
    }
    expect(high).toBe(3);
  });

  it("refuses a DER whose s is not minimal (a leading 00), low or high (the DER parser is strict)", () => {
    const sig = p256.Signature.fromBytes(fromHex(good.signature), "der");
    for (const s of [sig.s, N - sig.s]) {
      const int = (v: bigint, pad: boolean) => {
        let h = v.toString(16);
        if (h.length % 2) h = `0${h}`;
        if (Number.parseInt(h.slice(0, 2), 16) >= 0x80) h = `00${h}`;
        if (pad) h = `00${h}`;
        return `02${(h.length / 2).toString(16).padStart(2, "0")}${h}`;
      };
      const seq = int(sig.r, false) + int(s, true);
      const padded = `30${(seq.length / 2).toString(16).padStart(2, "0")}${seq}`;
      expect(() => decodeStamp(withFields({ signature: padded }))).toThrow(StampFormatError);
    }
  });

  const bad: Array<[string, string]> = [
    ["empty", ""],
    ["not base64url", "!!!"],
    [
      "standard base64 alphabet",
      Buffer.from(JSON.stringify(good))
        .toString("base64")
        .replace(/[A-Za-z]/, "+"),
    ],
    ["too much padding", `${encodeStamp(good)}===`],
    ["not JSON", b64url("not json")],
    ["invalid UTF-8", base64urlnopad.encode(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))],
    ["JSON null", b64url("null")],
    ["JSON array", b64url(JSON.stringify([good]))],
    ["JSON string", b64url(JSON.stringify("stamp"))],
    ["missing publicKey", b64url(JSON.stringify({ scheme: STAMP_SCHEME, signature: good.signature }))],
    ["uncompressed publicKey", withFields({ publicKey: `04${"11".repeat(64)}` })],
    ["publicKey with 04 prefix", withFields({ publicKey: `04${good.publicKey.slice(2)}` })],
    ["publicKey too short", withFields({ publicKey: good.publicKey.slice(0, 64) })],
    ["publicKey with 0x", withFields({ publicKey: `0x${good.publicKey}` })],
    ["publicKey not hex", withFields({ publicKey: `02${"zz".repeat(32)}` })],
    ["publicKey not a string", withFields({ publicKey: 2 })],
    ["wrong scheme", withFields({ scheme: "SIGNATURE_SCHEME_TK_API_SECP256K1" })],
    ["scheme in lowercase", withFields({ scheme: STAMP_SCHEME.toLowerCase() })],
    ["missing scheme", b64url(JSON.stringify({ publicKey: good.publicKey, signature: good.signature }))],
    ["missing signature", b64url(JSON.stringify({ publicKey: good.publicKey, scheme: STAMP_SCHEME }))],
    ["signature odd length", withFields({ signature: good.signature.slice(1) })],
    ["signature not hex", withFields({ signature: `${good.signature.slice(0, -2)}zz` })],
    ["signature too short", withFields({ signature: "3006020101020101".slice(0, 14) })],
    ["signature too long", withFields({ signature: "30".repeat(73) })],
    ["signature not a string", withFields({ signature: 1234 })],
    ["header too long", "A".repeat(5000)],
  ];

  it.each(bad)("rejects %s", (_name, header) => {
    let error: unknown;
    try {
      decodeStamp(header);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StampFormatError);
    expect((error as StampFormatError).code).toBe("INVALID_STAMP");
  });
});

describe("DER ⇄ compact", () => {
  const encodeInt = (hex: string) => {
    let v = hex.replace(/^(00)+/, "");
    if (v === "") v = "00";
    if (Number.parseInt(v.slice(0, 2), 16) >= 0x80) v = `00${v}`;
    return `02${(v.length / 2).toString(16).padStart(2, "0")}${v}`;
  };
  const expectedDer = (r: string, s: string) => {
    const body = encodeInt(r) + encodeInt(s);
    return `30${(body.length / 2).toString(16).padStart(2, "0")}${body}`;
  };

  it("handles high bits, leading zeros and the range ends", () => {
    const nMinus1 = (N - 1n).toString(16);
    const cases: Array<[string, string]> = [
      [`80${"00".repeat(30)}01`, `ff${"11".repeat(31)}`.slice(0, 64)], // r high bit, s high bit
      [`0000${"7f".repeat(30)}`, `00${"80".repeat(31)}`], // leading zeros; 0x80 after stripping
      [`${"00".repeat(31)}01`, nMinus1], // r = 1, s = n - 1 (high-s)
      [`00${"01".repeat(31)}`, `${"00".repeat(31)}7f`],
    ];
    for (const [r, s] of cases) {
      const compact = fromHex(r + s);
      const der = compactToDerP256(compact);
      expect(toHex(der)).toBe(expectedDer(r, s));
      expect(derToCompactP256(der)).toEqual(compact);
    }
  });

  it("round trips 200 random signatures and agrees with node:crypto's encodings", () => {
    let highR = 0;
    for (let i = 0; i < 200; i++) {
      const key = generateP256PrivateKey();
      const msg = crypto.getRandomValues(new Uint8Array(16));
      const pub = nodePublicKey(p256PublicKeyFromPrivate(key, true));

      const der = new Uint8Array(nodeSign("sha256", msg, { ...nodePrivateKey(key), dsaEncoding: "der" }));
      const compact = derToCompactP256(der);
      expect(compact).toHaveLength(64);
      expect(compactToDerP256(compact)).toEqual(der);
      expect(nodeVerify("sha256", msg, { key: pub, dsaEncoding: "ieee-p1363" }, compact)).toBe(true);
      if (compact[0]! >= 0x80) highR++;

      const p1363 = new Uint8Array(
        nodeSign("sha256", msg, { ...nodePrivateKey(key), dsaEncoding: "ieee-p1363" }),
      );
      const der2 = compactToDerP256(p1363);
      expect(toHex(der2)).toBe(expectedDer(toHex(p1363.subarray(0, 32)), toHex(p1363.subarray(32))));
      expect(nodeVerify("sha256", msg, { key: pub, dsaEncoding: "der" }, der2)).toBe(true);
      expect(derToCompactP256(der2)).toEqual(p1363);
    }
    expect(highR).toBeGreaterThan(0);
  });

  it("rejects malformed DER and out-of-range compact signatures", () => {
    const r = `7f${"11".repeat(31)}`;
    const s = `01${"22".repeat(31)}`;
    const valid = expectedDer(r, s);
    const malformed = [
      "",
      `${valid}00`, // trailing byte
      `31${valid.slice(2)}`, // wrong sequence tag
      `3045${valid.slice(4)}`, // sequence length mismatch
      `30460221007f${valid.slice(10)}`, // non-minimal integer (superfluous 00)
      `3006020100020101`, // r = 0
      `3006020101020180`, // negative s
    ];
    for (const hex of malformed) expect(() => derToCompactP256(fromHex(hex)), hex).toThrow(TypeError);
    expect(() => compactToDerP256(new Uint8Array(63))).toThrow(TypeError);
    expect(() => compactToDerP256(new Uint8Array(64))).toThrow(TypeError); // r = s = 0
    const nHex = N.toString(16);
    expect(() => compactToDerP256(fromHex(nHex + s))).toThrow(TypeError); // r = n
  });
});
