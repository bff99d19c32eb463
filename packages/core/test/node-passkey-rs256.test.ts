import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  SignerStatus,
  toViemAccount,
} from "@latchkey/core";
import { type Hex, hashMessage, recoverAddress, serializeSignature, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stampWithPasskey } from "../src/authMethods/passkey/webauthn";
import { startService, type TestService } from "./helpers/service";
import { SoftPasskeys } from "./helpers/softPasskeys";

// RS256 passkeys (spec §5; Windows Hello's default): a credential whose key is RSA signs up, signs in
// (a passkey-stamped lookup) and stamps a signature request, against the real service.
const ORIGIN = "http://localhost:5173";
let svc: TestService;

beforeAll(async () => {
  svc = await startService({ devOrigins: [ORIGIN] });
});
afterAll(async () => {
  await svc?.close();
});

function newSigner(credentials: SoftPasskeys): Signer {
  return createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    rpId: "localhost",
    credentials,
  });
}

describe("an RS256 passkey", () => {
  const passkeys = new SoftPasskeys(ORIGIN, { algorithm: "RS256" });
  let address: Hex;
  let orgId: string;

  it("signs up: the service stores an RSA (COSE kty 3, alg -257) credential", async () => {
    const signer = newSigner(passkeys);
    const result = await signer.authenticate({ type: "passkey", createNew: true });
    expect(result.status).toBe(SignerStatus.CONNECTED);
    expect(passkeys.calls).toEqual({ create: 1, get: 0 });
    expect(passkeys.credentials[0]?.privateKey.asymmetricKeyType).toBe("rsa");
    address = result.user?.address as Hex;
    orgId = result.user?.orgId as string;
    const [credentialId] = passkeys.credentialIds();
    const row = await svc.service.ctx.db
      .selectFrom("authenticators")
      .select(["public_key"])
      .where("credential_id", "=", credentialId as string)
      .executeTakeFirstOrThrow();
    const cose = Buffer.from(row.public_key, "base64url");
    // A CBOR map whose first pairs are 1 (kty) → 3 (RSA) and 3 (alg) → -257 (0x39 0x01 0x00).
    expect(cose.subarray(0, 7).toString("hex")).toBe("a4010303390100");
    const signature = await toViemAccount(signer).signMessage({ message: "rsa sign-up" });
    expect(await verifyMessage({ address, message: "rsa sign-up", signature })).toBe(true);
  });

  it("signs in on a fresh signer with one RS256 assertion, as the same user", async () => {
    const signer = newSigner(passkeys);
    const result = await signer.authenticate({ type: "passkey" });
    expect(result.status).toBe(SignerStatus.CONNECTED);
    expect(result.user?.address).toBe(address);
    expect(passkeys.calls).toEqual({ create: 1, get: 1 });
    expect(passkeys.credentials[0]?.signCount).toBe(1);
    const signature = await toViemAccount(signer).signMessage({ message: "rsa sign-in" });
    expect(await verifyMessage({ address, message: "rsa sign-in", signature })).toBe(true);
  });

  it("stamps a signature request with the passkey itself (X-Stamp-WebAuthn, RS256)", async () => {
    const signer = newSigner(passkeys);
    await signer.authenticate({ type: "passkey" });
    const digest = hashMessage("stamped by an RSA passkey");
    const stamper = (body: string) => stampWithPasskey(body, { credentials: passkeys, rpId: "localhost" });
    const activity = await signer.client.submit(
      "sign_raw_payload",
      {
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        organizationId: orgId,
        parameters: {
          signWith: address,
          payload: digest,
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      },
      { stamper },
    );
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(passkeys.calls.get).toBe(3);
    const { r, s, v } = (activity.result as { signRawPayloadResult: { r: string; s: string; v: string } })
      .signRawPayloadResult;
    const signature = serializeSignature({
      r: `0x${r}`,
      s: `0x${s}`,
      yParity: Number.parseInt(v, 16) as 0 | 1,
    });
    expect(await recoverAddress({ hash: digest, signature })).toBe(address);
  });
});
