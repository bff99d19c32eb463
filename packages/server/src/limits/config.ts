import { z } from "zod";

/** Per-window limits on what each address, IP and user may ask for (`rateLimits` in the config file). */
export const rateLimitsSchema = z.object({
  windowSeconds: z.number().int().positive().default(600),
  /** Codes or links mailed to one address per window. */
  mailsPerEmail: z.number().int().positive().default(10),
  /** Codes or links mailed on behalf of one IP per window. */
  mailsPerIp: z.number().int().positive().default(100),
  /** OTP submissions from one IP per window (guards guessing across many codes). */
  otpAttemptsPerIp: z.number().int().positive().default(100),
  /** Email lookups from one IP per window. */
  lookupsPerIp: z.number().int().positive().default(300),
  /** New accounts (email or passkey sign-up) from one IP per window: each one derives a wallet. */
  signupsPerIp: z.number().int().positive().default(100),
  /** Social sign-ins started (prepare-oauth) from one IP per window. */
  oauthPreparesPerIp: z.number().int().positive().default(300),
  /** Sign-In with Ethereum nonces issued to one IP per window (each is a row until it expires). */
  siweNoncesPerIp: z.number().int().positive().default(300),
  /** SIWE messages verified for one IP per window (a contract wallet's signature costs a chain call). */
  siweVerificationsPerIp: z.number().int().positive().default(300),
  /** Wallet exports by one user per window (each needs a fresh sign-in, and mails a security notice). */
  exportsPerUser: z.number().int().positive().default(3),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;
