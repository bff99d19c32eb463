import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

/**
 * A software WebAuthn authenticator for service tests: real P-256 keys, a real "none" attestation in
 * CBOR and real assertions, so the service's verification runs unchanged. (Browser tests use Chrome's
 * virtual authenticator instead.)
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  readonly #privateKey: KeyObject;
  readonly #x: Buffer;
  readonly #y: Buffer;
  #counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.#privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.#x = Buffer.from(jwk.x as string, "base64url");
    this.#y = Buffer.from(jwk.y as string, "base64url");
  }

  get credentialIdB64(): string {
    return this.credentialId.toString("base64url");
  }

  /** navigator.credentials.create() with the given challenge (base64url). */
  attest(challenge: string, origin = this.origin) {
    const clientDataJson = Buffer.from(
      JSON.stringify({ type: "webauthn.create", challenge, origin, crossOrigin: false }),
    );
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, this.#x],
        [-3, this.#y],
      ]),
    );
    const credLen = Buffer.alloc(2);
    credLen.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.#rpIdHash(),
      Buffer.from([0x45]),
      this.#count(),
      Buffer.alloc(16),
      credLen,
      this.credentialId,
      cose,
    ]);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      credentialId: this.credentialIdB64,
      clientDataJson: clientDataJson.toString("base64url"),
      attestationObject: attestationObject.toString("base64url"),
      transports: ["internal"],
    };
  }

  /** An X-Stamp-WebAuthn value over `body`: the challenge is hex(sha256(body)) as UTF-8. */
  stamp(body: string, opts: { origin?: string; rpId?: string } = {}) {
    const challenge = Buffer.from(createHash("sha256").update(body).digest("hex"), "utf8").toString(
      "base64url",
    );
    const clientDataJson = Buffer.from(
      JSON.stringify({
        type: "webauthn.get",
        challenge,
        origin: opts.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const authenticatorData = Buffer.concat([this.#rpIdHash(opts.rpId), Buffer.from([0x05]), this.#count()]);
    const signature = sign(
      "sha256",
      Buffer.concat([authenticatorData, createHash("sha256").update(clientDataJson).digest()]),
      this.#privateKey,
    );
    return JSON.stringify({
      credentialId: this.credentialIdB64,
      authenticatorData: authenticatorData.toString("base64url"),
      clientDataJson: clientDataJson.toString("base64url"),
      signature: signature.toString("base64url"),
    });
  }

  #rpIdHash(rpId = this.rpId): Buffer {
    return createHash("sha256").update(rpId).digest();
  }

  #count(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(++this.#counter);
    return b;
  }
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
