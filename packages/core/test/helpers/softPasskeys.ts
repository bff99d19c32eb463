import { generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import type { PasskeyCredentials } from "@latchkey/core";
import { assertion, clientData, noneAttestation } from "../../../../test-support/webauthn";

interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: Buffer;
  privateKey: KeyObject;
  signCount: number;
}

/** The COSE algorithm a SoftPasskeys authenticator makes its credentials with. */
export type SoftPasskeyAlgorithm = "ES256" | "RS256";

const COSE_ALG: Record<SoftPasskeyAlgorithm, number> = { ES256: -7, RS256: -257 };

/**
 * A software platform authenticator behind the `navigator.credentials` shape the signer uses: real P-256
 * keys (or, with `algorithm: "RS256"`, RSA-2048 keys, as Windows Hello makes), "none" attestations in
 * CBOR and real assertions, so the service verifies them unchanged. It keeps discoverable credentials,
 * honours allow/exclude lists and abort signals, and can play a user who dismisses the prompt. (Browser
 * tests use Chrome's virtual authenticator instead.)
 */
export class SoftPasskeys implements PasskeyCredentials {
  readonly credentials: SoftCredential[] = [];
  readonly calls = { create: 0, get: 0 };
  /** What the next prompt does: complete, be dismissed (NotAllowedError), or wait until aborted. */
  next: "complete" | "dismiss" | "hang" = "complete";

  constructor(
    readonly origin: string,
    readonly options: { algorithm?: SoftPasskeyAlgorithm } = {},
  ) {}

  get algorithm(): SoftPasskeyAlgorithm {
    return this.options.algorithm ?? "ES256";
  }

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
    // Like a real authenticator, it makes its one kind of key only if the relying party accepts it.
    if (!pk.pubKeyCredParams.some((p) => p.alg === COSE_ALG[this.algorithm])) {
      throw new DOMException("No supported algorithm", "NotSupportedError");
    }
    const { privateKey, publicKey } =
      this.algorithm === "RS256"
        ? generateKeyPairSync("rsa", { modulusLength: 2048, publicExponent: 0x10001 })
        : generateKeyPairSync("ec", { namedCurve: "P-256" });
    const credential: SoftCredential = {
      id: randomBytes(16),
      rpId,
      userHandle: Buffer.from(bytes(pk.user.id)),
      privateKey,
      signCount: 0,
    };
    this.credentials.push(credential);
    const clientDataJSON = this.#clientData("webauthn.create", pk.challenge);
    const { attestationObject } = noneAttestation({
      rpId,
      credentialId: credential.id,
      publicKey,
      signCount: credential.signCount,
    });
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
    const { authenticatorData, signature } = assertion({
      rpId,
      clientDataJson: clientDataJSON,
      privateKey: credential.privateKey,
      signCount: credential.signCount,
    });
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

  #clientData(type: "webauthn.create" | "webauthn.get", challenge: BufferSource): Buffer {
    return clientData(type, Buffer.from(bytes(challenge)).toString("base64url"), this.origin);
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
