import type { Hex } from "viem";

/** The signed-in user (spec §3, "User (signer)"). */
export interface User {
  address: Hex;
  userId: string;
  orgId: string;
  idToken?: string;
  solanaAddress?: string;
  email?: string;
  credentialId?: string;
  claims?: Record<string, unknown>;
  /**
   * Split custody (docs/split-custody.md): the wallet is split between the user's device and the
   * service, and every signature needs the device's part. Absent for a wallet the service keeps.
   */
  custody?: "split";
  /** The user's wallet (set for split custody, whose recovery is bound to it). */
  walletId?: string;
}

/** How the session began: an email link, an email code, a passkey or a social provider. */
export type SessionType = "email" | "oauth" | "otp" | "passkey";

/** What is stored under the session key: the bundle stays sealed to the key holder's target key. */
export interface Session {
  type: SessionType;
  user: User;
  bundle: string;
  expirationDateMs: number;
}

/** Stored under `<key>:temporary` between starting and finishing a sign-in. */
export interface TemporarySession {
  orgId: string;
  isNewUser?: boolean;
  otpId?: string;
  encryptedPayload?: string;
  mfaFactorId?: string;
  /**
   * The target key the code or link was asked for (hex): the code's bundle is sealed to the same key, so
   * submitting the code needs no second round trip to the key holder.
   */
  targetPublicKey?: string;
  /**
   * A split app's new user (the sign-up answered no address): their key holder makes the wallet, and the
   * code's sign-in carries it (docs/split-custody.md §3).
   */
  bringsWallet?: boolean;
  /** When a magic link's session was issued: the link's session expires relative to it. */
  issuedAtMs?: number;
  /** A social sign-in waiting for the email code that links its provider (kept across a reload). */
  authLinking?: { email: string; providerName?: string; idToken: string };
}
