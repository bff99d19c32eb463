import { createHmac } from "node:crypto";
import { MfaRequiredError, type Signer, SignerStatus } from "@latchkey/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "./helpers/clock";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// RFC 6238 TOTP (SHA-1, 30 s, 6 digits), computed independently of the service.
function base32Decode(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of text.replace(/=+$/, "").toUpperCase())
    bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}
function totp(secret: Buffer, nowMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(nowMs / 30_000)));
  const mac = createHmac("sha1", secret).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

let svc: TestService;
const clock = createManualClock();
beforeAll(async () => {
  svc = await startService({ now: () => clock.now() });
});
afterAll(async () => {
  await svc?.close();
});

describe("second factor (TOTP) through the signer", () => {
  const email = "mfa@example.com";
  let signer: Signer;
  let secret: Buffer;
  let factorId: string;

  it("needs a connected signer", async () => {
    const { createSigner, createMemoryKeyHolder, createMemoryStorage } = await import("@latchkey/core");
    const idle = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    await expect(idle.getMfaFactors()).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SignerError: Signer not connected or initialized]`,
    );
    await expect(idle.removeOauthProvider("p")).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SignerError: Must be authenticated!]`,
    );
  });

  it("adds and verifies a factor; auth methods list it", async () => {
    signer = await signInWithOtp(svc, email, { clock });
    const added = await signer.addMfa();
    expect(added).toMatchObject({ multiFactorType: "totp", multiFactorId: expect.any(String) });
    factorId = added.multiFactorId;
    secret = base32Decode(new URL(added.multiFactorTotpUrl).searchParams.get("secret") as string);
    const factors = await signer.verifyMfa({
      multiFactorId: factorId,
      multiFactorCode: totp(secret, clock.now()),
    });
    expect(factors).toEqual([{ multiFactorId: factorId, multiFactorType: "totp" }]);
    expect(await signer.getMfaFactors()).toEqual(factors);
    const methods = await signer.listAuthMethods();
    expect(methods).toMatchObject({ email, mfaFactors: factors, oauthProviders: [], passkeys: [] });
    await expect(signer.removeOauthProvider("nope")).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SignerError: OAuth providers not found]`,
    );
  });

  it("an OTP sign-in then settles at AWAITING_MFA_AUTH and completes with the TOTP code", async () => {
    await signer.disconnect();
    const sent = mailCount(svc, email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    const result = await signer.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
    expect(result).toEqual({ status: SignerStatus.AWAITING_MFA_AUTH, user: null });
    expect(signer.getState().mfaStatus).toEqual({ mfaRequired: true, mfaFactorId: factorId });
    clock.advance(30_000); // each TOTP step is accepted once
    // A wrong code keeps the pending sign-in: the status stays AWAITING_MFA_AUTH and the next code works.
    const right = totp(secret, clock.now());
    await expect(
      signer.validateMultiFactors({ multiFactorCode: right === "000000" ? "111111" : "000000" }),
    ).rejects.toThrow("Invalid MFA code");
    expect(signer.status).toBe(SignerStatus.AWAITING_MFA_AUTH);
    const user = await signer.validateMultiFactors({ multiFactorCode: right });
    expect(user.email).toBe(email);
    expect(signer.status).toBe(SignerStatus.CONNECTED);
    expect(signer.getState().mfaStatus).toEqual({ mfaRequired: false });
  });

  it("a magic link asks for the factor first: MfaRequiredError, then the link with the code", async () => {
    await signer.disconnect();
    const error = await signer
      .authenticate({ type: "email", email, emailMode: "magicLink" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MfaRequiredError);
    expect((error as MfaRequiredError).message).toBe("MFA is required for this user");
    expect((error as MfaRequiredError).multiFactors).toEqual([
      { multiFactorId: factorId, multiFactorType: "totp" },
    ]);
    expect(signer.status).toBe(SignerStatus.AWAITING_MFA_AUTH);

    clock.advance(30_000);
    const sent = mailCount(svc, email);
    const started = await signer.authenticate({
      type: "email",
      email,
      emailMode: "magicLink",
      multiFactors: [{ multiFactorId: factorId, multiFactorCode: totp(secret, clock.now()) }],
    });
    expect(started.status).toBe(SignerStatus.AWAITING_EMAIL_AUTH);
    const link = await svc.magicLink(email, sent);
    await signer.completeAuthWithBundle({
      bundle: link.searchParams.get("bundle") as string,
      orgId: link.searchParams.get("orgId") as string,
    });
    expect(signer.status).toBe(SignerStatus.CONNECTED);
    expect(await signer.removeMfa({ multiFactorIds: [factorId] })).toEqual([]);
  });
});
