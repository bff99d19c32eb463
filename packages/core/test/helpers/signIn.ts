import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  type SignerOptions,
} from "@latchkey/core";
import { mailCount, type TestService } from "./service";

/** A signer connected by email OTP through the memory key holder. */
export async function signInWithOtp(
  svc: TestService,
  email: string,
  options: Partial<SignerOptions> = {},
): Promise<Signer> {
  const signer = createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    ...options,
  });
  const sent = mailCount(svc, email);
  await signer.authenticate({ type: "email", email, emailMode: "otp" });
  await signer.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
  return signer;
}
