import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type { PasskeyCredentials } from "@latchkey/core";

interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: Buffer;
  privateKey: KeyObject;
  signCount: number;
}

/**
 * A software platform authenticator behind the `navigator.credentials` shape the signer uses: real P-256
 * keys, "none" attestations in CBOR and real assertions, so the service verifies them unchanged. It
 * keeps discoverable credentials, honours allow/exclude lists and abort signals, and can play a user who
 * dismisses the prompt. (Browser tests use Chrome's virtual authenticator instead.)
 */
export class SoftPasskeys implements PasskeyCredentials {
  readonly credentials: SoftCredential[] = [];
  readonly calls = { create: 0, get: 0 };
  /** What the next prompt does: complete, be dismissed (NotAllowedError), or wait until aborted. */
  next: "complete" | "dismiss" | "hang" = "complete";

  constructor(readonly origin: string) {}

  credentialIds(): string[] {
    return this.credentials.map((c) => c.id.toString("base64url"));
  }

  async create(options: CredentialCreationOptions): Promise<Credential | null> {
    this.calls.create++;
    const pk = options.publicKey;
    if (!pk) throw new TypeError("publicKey options are required");
    await this.#prompt(options.signal);
    const rpId = pk.rp.id ?? new URL(this.origin).hostname;
    const excluded = new Set(
      (pk.excludeCredentials ?? []).map((c) => Buffer.from(bytes(c.id)).toString("hex")),
    );
    if (this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id.toString("hex")))) {
      throw new DOMException("The authenticator holds an excluded credential", "InvalidStateError");
    }
    if (!pk.pubKeyCredParams.some((p) => p.alg === -7)) {
      throw new DOMException("No supported algorithm", "NotSupportedError");
    }
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const credential: SoftCredential = {
      id: randomBytes(16),
      rpId,
      userHandle: Buffer.from(bytes(pk.user.id)),
      privateKey,
      signCount: 0,
    };
    this.credentials.push(credential);
    const clientDataJSON = this.#clientData("webauthn.create", pk.challenge);
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x as string, "base64url")],
        [-3, Buffer.from(jwk.y as string, "base64url")],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]), // UP | UV | AT
      u32(credential.signCount),
      Buffer.alloc(16),
      idLength,
      credential.id,
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
      id: credential.id.toString("base64url"),
      rawId: buffer(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: buffer(clientDataJSON),
        attestationObject: buffer(attestationObject),
        getTransports: () => ["internal"],
      },
    } as unknown as Credential;
  }

  async get(options: CredentialRequestOptions): Promise<Credential | null> {
    this.calls.get++;
    const pk = options.publicKey;
    if (!pk) throw new TypeError("publicKey options are required");
    await this.#prompt(options.signal);
    const rpId = pk.rpId ?? new URL(this.origin).hostname;
    const allowed = new Set((pk.allowCredentials ?? []).map((c) => Buffer.from(bytes(c.id)).toString("hex")));
    const candidates = this.credentials.filter(
      (c) => c.rpId === rpId && (allowed.size === 0 || allowed.has(c.id.toString("hex"))),
    );
    // A real browser would show an account picker; the newest passkey stands in for the user's choice.
    const credential = candidates.at(-1);
    if (!credential) throw new DOMException("No passkey for this site", "NotAllowedError");
    credential.signCount++;
    const clientDataJSON = this.#clientData("webauthn.get", pk.challenge);
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.from([0x05]), u32(credential.signCount)]);
    const signature = sign(
      "sha256",
      Buffer.concat([authenticatorData, createHash("sha256").update(clientDataJSON).digest()]),
      credential.privateKey,
    );
    return {
      id: credential.id.toString("base64url"),
      rawId: buffer(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: buffer(clientDataJSON),
        authenticatorData: buffer(authenticatorData),
        signature: buffer(signature),
        userHandle: buffer(credential.userHandle),
      },
    } as unknown as Credential;
  }

  async #prompt(signal: AbortSignal | null | undefined): Promise<void> {
    const next = this.next;
    this.next = "complete";
    if (signal?.aborted) throw new DOMException("The operation was aborted", "AbortError");
    if (next === "dismiss") throw new DOMException("The user dismissed the prompt", "NotAllowedError");
    if (next === "hang") {
      await new Promise<never>((_, reject) => {
        signal?.addEventListener("abort", () =>
          reject(new DOMException("The operation was aborted", "AbortError")),
        );
      });
    }
  }

  #clientData(type: string, challenge: BufferSource): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: Buffer.from(bytes(challenge)).toString("base64url"),
        origin: this.origin,
        crossOrigin: false,
      }),
    );
  }
}

function bytes(source: BufferSource): Uint8Array {
  return source instanceof ArrayBuffer
    ? new Uint8Array(source)
    : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
}

function buffer(b: Buffer): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
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
