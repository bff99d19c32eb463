import { z } from "zod";
import { initOtpRequestSchema, verifyOtpRequestSchema } from "./contact";
import { type Endpoint, withSchema } from "./defineEndpoint";
import { authRequestSchema, emailSignupRequestSchema, lookupRequestSchema, otpRequestSchema } from "./email";
import { createGrantRequestSchema, listGrantsRequestSchema, revokeGrantRequestSchema } from "./grants";
import { mfaDeleteSchema, mfaListSchema, mfaRequestSchema, mfaValidateSchema, mfaVerifySchema } from "./mfa";
import { prepareOauthRequestSchema } from "./oauth";
import { passkeySignupRequestSchema } from "./passkeys";
import { type SignerEndpointName, signerRoutes } from "./routes";
import { listAuthMethodsSchema, signerConfigRequestSchema } from "./session";
import { siweNonceRequestSchema, siweSessionRequestSchema, siweVerifyRequestSchema } from "./siwe";
import { stampedRequestBodySchema } from "./stampedRequest";

/**
 * The signer API with each route's request schema: what the server registers routes from and validates
 * bodies with. Clients call `signerRoutes` (./routes), which carries no schema.
 */
export const signerApi = {
  signerConfig: withSchema(signerRoutes.signerConfig, signerConfigRequestSchema),
  lookup: withSchema(signerRoutes.lookup, lookupRequestSchema),
  signup: withSchema(signerRoutes.signup, z.union([passkeySignupRequestSchema, emailSignupRequestSchema])),
  auth: withSchema(signerRoutes.auth, authRequestSchema),
  otp: withSchema(signerRoutes.otp, otpRequestSchema),
  whoami: withSchema(signerRoutes.whoami, stampedRequestBodySchema),
  prepareOauth: withSchema(signerRoutes.prepareOauth, prepareOauthRequestSchema),
  signPayload: withSchema(signerRoutes.signPayload, stampedRequestBodySchema),
  listAuthMethods: withSchema(signerRoutes.listAuthMethods, listAuthMethodsSchema),
  addOauthProvider: withSchema(signerRoutes.addOauthProvider, stampedRequestBodySchema),
  removeOauthProvider: withSchema(signerRoutes.removeOauthProvider, stampedRequestBodySchema),
  initOtp: withSchema(signerRoutes.initOtp, initOtpRequestSchema),
  verifyOtp: withSchema(signerRoutes.verifyOtp, verifyOtpRequestSchema),
  updateEmailAuth: withSchema(signerRoutes.updateEmailAuth, stampedRequestBodySchema),
  authListMultiFactors: withSchema(signerRoutes.authListMultiFactors, mfaListSchema),
  authRequestMultiFactor: withSchema(signerRoutes.authRequestMultiFactor, mfaRequestSchema),
  authVerifyMultiFactor: withSchema(signerRoutes.authVerifyMultiFactor, mfaVerifySchema),
  authDeleteMultiFactors: withSchema(signerRoutes.authDeleteMultiFactors, mfaDeleteSchema),
  authValidateMultiFactors: withSchema(signerRoutes.authValidateMultiFactors, mfaValidateSchema),
  siweNonce: withSchema(signerRoutes.siweNonce, siweNonceRequestSchema),
  siweVerify: withSchema(signerRoutes.siweVerify, siweVerifyRequestSchema),
  siweSession: withSchema(signerRoutes.siweSession, siweSessionRequestSchema),
  createGrant: withSchema(signerRoutes.createGrant, createGrantRequestSchema),
  listGrants: withSchema(signerRoutes.listGrants, listGrantsRequestSchema),
  revokeGrant: withSchema(signerRoutes.revokeGrant, revokeGrantRequestSchema),
  createSplitWallet: withSchema(signerRoutes.createSplitWallet, stampedRequestBodySchema),
  beginSplitWallet: withSchema(signerRoutes.beginSplitWallet, stampedRequestBodySchema),
  completeSplitWallet: withSchema(signerRoutes.completeSplitWallet, stampedRequestBodySchema),
  setRecoveryShare: withSchema(signerRoutes.setRecoveryShare, stampedRequestBodySchema),
  getRecoveryShares: withSchema(signerRoutes.getRecoveryShares, stampedRequestBodySchema),
} as const satisfies Record<SignerEndpointName, Endpoint>;
export type SignerApi = typeof signerApi;

export * from "./contact";
export * from "./custody";
export * from "./defineEndpoint";
export * from "./email";
export * from "./grants";
export * from "./mfa";
export * from "./oauth";
export * from "./passkeys";
export * from "./responses";
export * from "./routes";
export * from "./session";
export * from "./signing";
export * from "./siwe";
export * from "./stampedRequest";
