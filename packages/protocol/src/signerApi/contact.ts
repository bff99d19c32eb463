import { z } from "zod";
import { emailSchema, idSchema, otpCodeSchema } from "../common";

/**
 * Proving an address before it becomes a sign-in method (DESIGN §3.1, §9 "Managing auth methods"):
 * `/v1/init-otp` mails a code to the contact, `/v1/verify-otp` trades the right code for a short-lived,
 * single-use verification token naming the contact, which `update_user_email` requires.
 */
export const initOtpRequestSchema = z.object({
  contact: emailSchema,
  otpType: z.literal("OTP_TYPE_EMAIL"),
});
export type InitOtpRequest = z.input<typeof initOtpRequestSchema>;
export interface InitOtpResponse {
  otpId: string;
}

export const verifyOtpRequestSchema = z.object({
  otpId: idSchema(128),
  otpCode: otpCodeSchema,
});
export type VerifyOtpRequest = z.input<typeof verifyOtpRequestSchema>;
export interface VerifyOtpResponse {
  /** A token (JWT) naming the verified contact; valid for 10 minutes, once. */
  verificationToken: string;
}
