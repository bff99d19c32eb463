/**
 * Step-up from Node against the real service (W1): once the sign-in is older than five minutes, adding
 * or removing a second factor and changing the email answer STEP_UP_REQUIRED with the methods that count
 * (`stepUpMethodsOf`), and the same call with `stepUp` goes through.
 */
import { createHmac } from "node:crypto";
import { createGrant, SignerApiError, stepUpMethodsOf } from "@latchkey/core";
import { STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
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

describe("step-up for changes to how the user signs in", () => {
  it("asks a stale sign-in for a fresh one, and accepts it as `stepUp`", async () => {
    const email = "stale@example.com";
    const signer = await signInWithOtp(svc, email, { clock });
    clock.advance(STEP_UP_MAX_AGE_MS + 1000);

    const refused = await signer.addMfa().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SignerApiError);
    expect(stepUpMethodsOf(refused)).toEqual(["email"]);

    // A code mailed to the current address.
    const codeFor = async (contact: string) => {
      const sent = mailCount(svc, contact);
      const { otpId } = await signer.sendVerificationCode({ contact });
      return { otpId, verificationCode: await svc.otpCode(contact, sent) };
    };
    const added = await signer.addMfa({
      multiFactorType: "totp",
      stepUp: { type: "email", ...(await codeFor(email)) },
    });
    const secret = base32Decode(new URL(added.multiFactorTotpUrl).searchParams.get("secret") as string);
    const factors = await signer.verifyMfa({
      multiFactorId: added.multiFactorId,
      multiFactorCode: totp(secret, clock.now()),
    });
    expect(factors).toEqual([{ multiFactorId: added.multiFactorId, multiFactorType: "totp" }]);

    // A new address: its own code proves it, not the account.
    const next = "moved@example.com";
    const moved = await signer.setEmail({ email: next, ...(await codeFor(next)) }).catch((e: unknown) => e);
    expect(stepUpMethodsOf(moved)).toEqual(["email", "totp"]);
    expect(signer.user?.email).toBe(email);
    clock.advance(30_000);
    const user = await signer.setEmail({
      email: next,
      ...(await codeFor(next)),
      stepUp: { type: "totp", multiFactorId: added.multiFactorId, code: totp(secret, clock.now()) },
    });
    expect(user.email).toBe(next);

    const keep = await signer.removeMfa({ multiFactorIds: [added.multiFactorId] }).catch((e: unknown) => e);
    expect(stepUpMethodsOf(keep)).toEqual(["email", "totp"]);
    expect(await signer.getMfaFactors()).toHaveLength(1);
    expect(
      await signer.removeMfa({
        multiFactorIds: [added.multiFactorId],
        stepUp: { type: "email", ...(await codeFor(next)) },
      }),
    ).toEqual([]);
  });

  it("a grant for the app's backend needs a fresh sign-in too: createGrant takes the same `stepUp`", async () => {
    const email = "grant@example.com";
    const signer = await signInWithOtp(svc, email, { clock });
    clock.advance(STEP_UP_MAX_AGE_MS + 1000);
    const permissions = { chainIds: [1], messages: true, expiresAt: clock.now() + 3600_000 };
    const refused = await createGrant(signer, permissions).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SignerApiError);
    expect(stepUpMethodsOf(refused)).toEqual(["email"]);
    const sent = mailCount(svc, email);
    const { otpId } = await signer.sendVerificationCode({ contact: email });
    const grant = await createGrant(signer, permissions, {
      stepUp: { type: "email", otpId, verificationCode: await svc.otpCode(email, sent) },
    });
    expect(grant).toMatchObject({ status: "active", permissions: { chainIds: [1], messages: true } });
  });
});
