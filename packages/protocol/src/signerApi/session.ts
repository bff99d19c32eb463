import { z } from "zod";
import { idSchema } from "../common";
import type { MultiFactor } from "./mfa";
import { stampedRequestSchema } from "./stampedRequest";

/** Who is signed in, the app's signer config, and the user's ways to sign in. */
export const signerConfigRequestSchema = z.object({});
/**
 * How an app keeps its users' wallets (docs/split-custody.md): "service" (the service holds each wallet
 * sealed and signs alone) or "split" (the wallet is made in the user's key holder and split 2-of-2; every
 * signature needs the user's share).
 */
export type CustodyMode = "split" | "service";

/** The app's settings the client needs: its email mode. */
export interface SignerConfigResponse {
  email: { mode: "OTP" | "MAGIC_LINK" };
  /** The app's root organisation: what a passkey login addresses before the user is known. */
  rootOrgId: string;
  /**
   * The app's custody mode, and the service's share key (P-256, uncompressed hex `04…`): what a key
   * holder seals the user's share (per request) and a new wallet's service share to.
   */
  custody: { mode: CustodyMode; shareKey: string };
  /**
   * Enforced confirmations (issue 46): the signatures the app's signing policy makes the user confirm in
   * the auth frame (`true`: every kind); absent when it asks for none. The modal then leaves those to the
   * frame instead of showing its own step too.
   */
  confirmation?: { required: true | ConfirmationKind[] };
}

/** What `signingPolicy.confirmation.required` may name. */
export type ConfirmationKind =
  | "transaction"
  | "userOperation"
  | "typedData"
  | "authorization"
  | "message"
  | "rawPayload"
  | "solanaPayload";

export type { WhoamiResponse } from "./user";

export const listAuthMethodsSchema = z.object({
  suborgId: idSchema(128),
  stampedRequest: stampedRequestSchema,
});
/** The user's ways to sign in: email, social providers, passkeys and second factors. */
export interface AuthMethods {
  email?: string;
  oauthProviders: { providerId: string; issuer: string; providerName?: string; userDisplayName?: string }[];
  passkeys: { authenticatorId: string; name: string; createdAt: number }[];
  mfaFactors?: MultiFactor[];
}

/** What add-oauth-provider answers: the user's linked providers after the change. */
export interface AddOauthProviderResponse {
  oauthProviders: AuthMethods["oauthProviders"];
}
