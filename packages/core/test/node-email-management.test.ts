/** setEmail and removeEmail from Node against the real service: what the user object and the service say. */
import { SignerApiError, SignerError } from "@latchkey/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

describe("managing the email sign-in", () => {
  it("changes the email with a code sent to the new address; user.email changes at once", async () => {
    const signer = await signInWithOtp(svc, "before@example.com");
    const userIdBefore = signer.user?.userId;
    const seen: (string | undefined)[] = [];
    signer.store.subscribe(
      (s) => s.user?.email,
      (email) => seen.push(email),
    );
    const sent = mailCount(svc, "after@example.com");
    const { otpId } = await signer.sendVerificationCode({ contact: "After@Example.com" });
    const code = await svc.otpCode("after@example.com", sent);
    const user = await signer.setEmail({ email: "After@Example.com", otpId, verificationCode: code });
    expect(user.email).toBe("after@example.com");
    expect(signer.user?.email).toBe("after@example.com");
    expect(seen).toEqual(["after@example.com"]);
    // Same session, same user; the service agrees.
    expect(signer.user?.userId).toBe(userIdBefore);
    expect((await signer.listAuthMethods()).email).toBe("after@example.com");
    // The new address signs in to the same account.
    const again = await signInWithOtp(svc, "after@example.com");
    expect(again.user?.userId).toBe(userIdBefore);
  });

  it("refuses an empty email with the spec's text, and a wrong code with the service's", async () => {
    const signer = await signInWithOtp(svc, "empty@example.com");
    const empty = await signer
      .setEmail({ email: " ", otpId: "x", verificationCode: "123456" })
      .catch((e) => e);
    expect(empty).toBeInstanceOf(SignerError);
    expect(empty.message).toBe("Email must not be empty. Use removeEmail() to remove email auth.");
    const { otpId } = await signer.sendVerificationCode({ contact: "typo@example.com" });
    const wrong = await signer
      .setEmail({ email: "typo@example.com", otpId, verificationCode: "000001" })
      .catch((e) => e);
    expect(wrong).toBeInstanceOf(SignerApiError);
    expect((wrong as SignerApiError).code).toBe("INVALID_OTP");
    expect(signer.user?.email).toBe("empty@example.com");
  });

  it("won't remove the last way to sign in", async () => {
    const signer = await signInWithOtp(svc, "only@example.com");
    const refused = await signer.removeEmail().catch((e) => e);
    expect(refused).toBeInstanceOf(SignerApiError);
    expect((refused as SignerApiError).code).toBe("LAST_AUTH_METHOD");
    expect(signer.user?.email).toBe("only@example.com");
  });
});
