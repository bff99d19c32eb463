import { signerRoutes } from "@latchkey/protocol/wire";
import type { Stamper } from "../client/types";
import type { PasskeyCeremony, SignerBase } from "./types";

/**
 * How the user proves a fresh sign-in (step-up) when the session is not one: the service asks for it
 * (STEP_UP_REQUIRED) before a wallet export and before a change to how the user signs in (adding a
 * passkey, a second factor or a social sign-in, removing a second factor, changing the email).
 */
export type StepUp =
  /** A code `sendVerificationCode` mailed to the user's current email. */
  | { type: "email"; otpId: string; verificationCode: string }
  /** A passkey prompt: the request itself is signed by one of the user's passkeys. */
  | { type: "passkey" }
  /** A code of one of the user's authenticator-app factors. */
  | { type: "totp"; multiFactorId: string; code: string };

/** The re-authentication methods a STEP_UP_REQUIRED refusal lists. */
export type StepUpMethod = "email" | "passkey" | "totp";

/** What a request carries for a step-up: the proof's parameters, or a passkey to stamp it with. */
export interface StepUpRequest {
  /** The current email's verification token (from the mailed code). */
  verificationToken?: string;
  multiFactor?: { multiFactorId: string; multiFactorCode: string };
  /** Stamps the request with a passkey instead of the session key. */
  stamper?: Stamper;
}

/**
 * Runs `request` with the step-up proof `stepUp` turned into what the request carries (a verified email
 * code becomes a verification token; a passkey prompt stamps the request). A passkey prompt uses
 * `ceremony` when one is already open (e.g. `addPasskey`'s), else its own.
 */
export async function withStepUp<T>(
  signer: SignerBase,
  stepUp: StepUp | undefined,
  request: (proof: StepUpRequest) => Promise<T>,
  ceremony?: PasskeyCeremony,
): Promise<T> {
  if (stepUp?.type === "email") {
    const { verificationToken } = await signer.client.call(signerRoutes.verifyOtp, {
      otpId: stepUp.otpId,
      otpCode: stepUp.verificationCode,
    });
    return request({ verificationToken });
  }
  if (stepUp?.type === "totp")
    return request({ multiFactor: { multiFactorId: stepUp.multiFactorId, multiFactorCode: stepUp.code } });
  if (stepUp?.type !== "passkey") return request({});
  const own = ceremony ? undefined : signer._internal.authMethods.passkey.startCeremony(signer);
  const prompt = (ceremony ?? own) as PasskeyCeremony;
  try {
    const webauthn = await import("../authMethods/passkey/webauthn");
    return await request({
      stamper: (body) =>
        webauthn.stampWithPasskey(body, {
          credentials: prompt.credentials,
          rpId: prompt.rpId,
          signal: prompt.signal,
          allowCredentials: [],
        }),
    });
  } finally {
    own?.done();
  }
}

/**
 * Whether `error` is the service's STEP_UP_REQUIRED (the action needs a fresh sign-in), and if so the
 * methods the user can re-authenticate with (`email`, `passkey`, `totp`): only those that count.
 *
 * @example
 * const methods = stepUpMethodsOf(error); // ["email", "passkey"] or undefined
 */
export function stepUpMethodsOf(error: unknown): StepUpMethod[] | undefined {
  const e = error as { code?: unknown; data?: { stepUpMethods?: unknown }; details?: unknown[] } | null;
  if (e?.code !== "STEP_UP_REQUIRED") return undefined;
  const data = (e.data ?? e.details?.[0]) as { stepUpMethods?: unknown } | undefined;
  const methods = Array.isArray(data?.stepUpMethods) ? data.stepUpMethods : [];
  return methods.filter((m): m is StepUpMethod => m === "email" || m === "passkey" || m === "totp");
}
