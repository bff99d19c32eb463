import { createHash, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { assertion, clientData, noneAttestation } from "../../../test-support/webauthn";

/**
 * A software WebAuthn authenticator for service tests: real P-256 keys, a real "none" attestation in
 * CBOR and real assertions, so the service's verification runs unchanged. (Browser tests use Chrome's
 * virtual authenticator instead.)
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  #counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.#privateKey = privateKey;
    this.#publicKey = publicKey;
  }

  get credentialIdB64(): string {
    return this.credentialId.toString("base64url");
  }

  /** navigator.credentials.create() with the given challenge (base64url). */
  attest(challenge: string, origin = this.origin) {
    const clientDataJson = clientData("webauthn.create", challenge, origin);
    const { attestationObject } = noneAttestation({
      rpId: this.rpId,
      credentialId: this.credentialId,
      publicKey: this.#publicKey,
      signCount: ++this.#counter,
    });
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
    const clientDataJson = clientData("webauthn.get", challenge, opts.origin ?? this.origin);
    const { authenticatorData, signature } = assertion({
      rpId: opts.rpId ?? this.rpId,
      clientDataJson,
      privateKey: this.#privateKey,
      signCount: ++this.#counter,
    });
    return JSON.stringify({
      credentialId: this.credentialIdB64,
      authenticatorData: authenticatorData.toString("base64url"),
      clientDataJson: clientDataJson.toString("base64url"),
      signature: signature.toString("base64url"),
    });
  }
}
