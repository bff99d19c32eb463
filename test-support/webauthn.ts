import { createHash, type KeyObject, sign } from "node:crypto";

/**
 * The bytes a WebAuthn authenticator produces, built from real P-256 (or RSA) keys, for the software
 * authenticators of the service tests and the Node client tests: a "none" attestation (CBOR) at
 * registration and a signed assertion at login, so the service verifies them unchanged.
 */

const FLAGS_UP_UV_AT = 0x45;
const FLAGS_UP_UV = 0x05;
const FLAGS_UP = 0x01;

/** clientDataJSON for a ceremony, with the challenge already base64url. */
export function clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string) {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** A credential's public key as COSE (what the service stores, base64url): ES256 for P-256, RS256 for RSA. */
export function cosePublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  return cbor(
    publicKey.asymmetricKeyType === "rsa"
      ? new Map<number, unknown>([
          [1, 3], // kty RSA
          [3, -257], // alg RS256 (RSASSA-PKCS1-v1_5 with SHA-256)
          [-1, Buffer.from(jwk.n as string, "base64url")],
          [-2, Buffer.from(jwk.e as string, "base64url")],
        ])
      : new Map<number, unknown>([
          [1, 2], // kty EC2
          [3, -7], // alg ES256
          [-1, 1], // crv P-256
          [-2, Buffer.from(jwk.x as string, "base64url")],
          [-3, Buffer.from(jwk.y as string, "base64url")],
        ]),
  );
}

/**
 * The attestation object ("none") for a new credential, and its authenticator data. A P-256 key is an
 * ES256 credential; an RSA key an RS256 one (Windows Hello's default).
 */
export function noneAttestation(args: {
  rpId: string;
  credentialId: Buffer;
  publicKey: KeyObject;
  signCount: number;
}): { attestationObject: Buffer; authData: Buffer } {
  const cose = cosePublicKey(args.publicKey);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(args.credentialId.length);
  const authData = Buffer.concat([
    sha256(args.rpId),
    Buffer.from([FLAGS_UP_UV_AT]),
    u32(args.signCount),
    Buffer.alloc(16), // AAGUID
    idLength,
    args.credentialId,
    cose,
  ]);
  const attestationObject = cbor(
    new Map<string, unknown>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", authData],
    ]),
  );
  return { attestationObject, authData };
}

/** An assertion: authenticator data (UP, UV) and the signature over it and the client data's hash. */
export function assertion(args: {
  rpId: string;
  clientDataJson: Buffer;
  privateKey: KeyObject;
  signCount: number;
  /** False: the authenticator proved presence only (flags UP, no UV). */
  userVerified?: boolean;
}): { authenticatorData: Buffer; signature: Buffer } {
  const authenticatorData = Buffer.concat([
    sha256(args.rpId),
    Buffer.from([args.userVerified === false ? FLAGS_UP : FLAGS_UP_UV]),
    u32(args.signCount),
  ]);
  const signature = sign(
    "sha256",
    Buffer.concat([authenticatorData, createHash("sha256").update(args.clientDataJson).digest()]),
    args.privateKey,
  );
  return { authenticatorData, signature };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const s = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, s.length), s]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: unsupported ${typeof value}`);
}
