import { z } from "zod";
import {
  base64urlSchema,
  emailSchema,
  expirationSecondsSchema,
  idSchema,
  otpCodeSchema,
  p256PublicKeyHexSchema,
  textSchema,
  urlSchema,
} from "../common";
import { publicAccountSchema } from "../keyManagement/walletImport";
import type { WhoamiResponse } from "./user";

/** Email sign-in: lookup, signup, auth (existing users) and otp (DESIGN §3.1, §5). */
export const emailModeSchema = z.enum(["magicLink", "otp"]);
/** How an email sign-in proves the address: a magic link or a 6-digit code. */
export type EmailMode = z.infer<typeof emailModeSchema>;

export const multiFactorSchema = z.object({
  multiFactorId: idSchema(128),
  multiFactorCode: otpCodeSchema,
});

const redirectFields = {
  /** Extra query parameters appended to the magic link (URLSearchParams text). */
  redirectParams: textSchema(2048).optional(),
  /** Where the magic link leads; must be on the app's magic-link allow-list (defaults to its first entry). */
  redirectUrl: urlSchema(2048).optional(),
};

export const emailSignupRequestSchema = z.object({
  email: emailSchema,
  emailMode: emailModeSchema.optional(),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  ...redirectFields,
});
export type EmailSignupRequest = z.input<typeof emailSignupRequestSchema>;

export const authRequestSchema = z.object({
  email: emailSchema,
  emailMode: emailModeSchema.optional(),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  multiFactors: z.array(multiFactorSchema).max(5).optional(),
  ...redirectFields,
});
export type AuthRequest = z.input<typeof authRequestSchema>;

export const otpRequestSchema = z.object({
  orgId: idSchema(128),
  otpId: idSchema(128),
  otpCode: otpCodeSchema,
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  multiFactors: z.array(multiFactorSchema).max(5).optional(),
  /**
   * Split custody (docs/split-custody.md §3): a new user's wallet, made by their key holder, carried by the
   * sign-in that issues their first session. `sealed` is both shares in one HPKE envelope to the share key,
   * bound to this sign-in (`sealSignInWallet`: organisation, code id and `targetPublicKey`); the service
   * records the wallet in the transaction that spends the code, when the user has none.
   */
  splitWallet: z
    .object({
      sealed: base64urlSchema.min(160).max(4096),
      accounts: z.array(publicAccountSchema).min(1).max(16),
    })
    .optional(),
});
export type OtpRequest = z.input<typeof otpRequestSchema>;

export const lookupRequestSchema = z.object({ email: emailSchema });
export type LookupRequest = z.input<typeof lookupRequestSchema>;

/** A new user: the organisation, the user, the wallet addresses and (by email) the code's id. */
export interface SignupResponse {
  orgId: string;
  userId?: string;
  address?: string;
  solanaAddress?: string;
  otpId?: string;
  /** Passkey sign-up with a targetPublicKey: the new user's session, sealed to that key. */
  credentialBundle?: string;
}
/** The answer to `/v1/auth`: the user's organisation, and the code's id when a code was mailed. */
export interface AuthResponse {
  orgId: string;
  otpId?: string;
  multiFactors?: { multiFactorId: string; multiFactorType: "totp" }[];
}
/** The answer to a code: a credential bundle, or a request for the second factor. */
export type OtpResponse =
  | {
      status: "SUCCESS";
      credentialBundle: string;
      /**
       * Who signed in, as `/v1/whoami` would answer for the new session: the client needs no stamped
       * whoami before `connected`. Optional: a client falls back to whoami where a service omits it.
       */
      user?: WhoamiResponse;
    }
  | {
      status: "MFA_REQUIRED";
      encryptedPayload: string;
      multiFactors: { multiFactorId: string; multiFactorType: "totp" }[];
    };
/** The organisation of the user with this email, or null. */
export interface LookupResponse {
  orgId: string | null;
}
