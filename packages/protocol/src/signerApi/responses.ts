import { z } from "zod";
import { errorCodeSchema } from "../common";
import type { SignerErrorBody } from "../errors";
import { schemaFor } from "../schemaFor";
import type { InitOtpResponse, VerifyOtpResponse } from "./contact";
import type {
  BeginSplitWalletResponse,
  CompleteSplitWalletResponse,
  CreateSplitWalletResponse,
  GetRecoverySharesResponse,
  RecoveryShareRecord,
  SetRecoveryShareResponse,
} from "./custody";
import type { AuthResponse, LookupResponse, OtpResponse, SignupResponse } from "./email";
import { type Grant, type GrantResponse, type GrantsResponse, grantSchema } from "./grants";
import {
  type MultiFactor,
  type MultiFactorsResponse,
  multiFactorTypeSchema,
  type RequestMultiFactorResponse,
  type ValidateMultiFactorsResponse,
} from "./mfa";
import type { PrepareOauthResponse } from "./oauth";
import type { RouteResponse, SignerEndpointName, SignerRoutes } from "./routes";
import type { AddOauthProviderResponse, AuthMethods, SignerConfigResponse, WhoamiResponse } from "./session";
import type { SignPayloadResponse } from "./signing";
import type { SiweNonceResponse, SiweSessionResponse, SiweVerifyResponse } from "./siwe";

/**
 * The signer API's answers as schemas (DESIGN §3.1), each checked against the interface the route declares
 * (`schemaFor`). The service does not validate its own answers with them: they describe the wire, for the
 * OpenAPI document (`GET /openapi.json`) and for callers that want to check an answer.
 */

/** A second factor as answers list it: its id and type. */
export const multiFactorInfoSchema = schemaFor<MultiFactor>()(
  z.object({ multiFactorId: z.string(), multiFactorType: multiFactorTypeSchema }),
);

/** `/v1/signer-config`: the app's email mode and root organisation. */
export const signerConfigResponseSchema = schemaFor<SignerConfigResponse>()(
  z.object({
    email: z.object({ mode: z.enum(["OTP", "MAGIC_LINK"]) }),
    rootOrgId: z.string(),
    custody: z.object({ mode: z.enum(["split", "service"]), shareKey: z.string() }),
    confirmation: z
      .object({
        required: z.union([
          z.literal(true),
          z.array(
            z.enum([
              "transaction",
              "userOperation",
              "typedData",
              "authorization",
              "message",
              "rawPayload",
              "solanaPayload",
            ]),
          ),
        ]),
      })
      .optional(),
  }),
);

/** `/v1/lookup`: the organisation of the user with this email, or null. */
export const lookupResponseSchema = schemaFor<LookupResponse>()(z.object({ orgId: z.string().nullable() }));

/** `/v1/signup`: the new user. */
export const signupResponseSchema = schemaFor<SignupResponse>()(
  z.object({
    orgId: z.string(),
    userId: z.string().optional(),
    address: z.string().optional(),
    solanaAddress: z.string().optional(),
    otpId: z.string().optional(),
    credentialBundle: z.string().optional(),
  }),
);

/** `/v1/auth`: the user's organisation and, when a code was mailed, its id. */
export const authResponseSchema = schemaFor<AuthResponse>()(
  z.object({
    orgId: z.string(),
    otpId: z.string().optional(),
    multiFactors: z.array(multiFactorInfoSchema).optional(),
  }),
);

/** `/v1/whoami`: the signed-in user. */
export const whoamiResponseSchema = schemaFor<WhoamiResponse>()(
  z.object({
    email: z.string().optional(),
    orgId: z.string(),
    userId: z.string(),
    address: z.string().optional(),
    solanaAddress: z.string().optional(),
    custody: z.enum(["split", "service"]),
    walletState: z.enum(["none", "whole", "ready"]),
    walletId: z.string().optional(),
    recovery: z.array(z.enum(["passkey", "code"])),
    idToken: z.string().optional(),
    credentialId: z.string().optional(),
    smartAccountKind: z.enum(["7702", "4337"]).optional(),
    smartAccountContract: z.enum(["SimpleAccount", "LatchkeySimpleAccount"]).optional(),
  }),
);

/** `/v1/otp`: a credential bundle, or a request for the second factor. */
export const otpResponseSchema = schemaFor<OtpResponse>()(
  z.discriminatedUnion("status", [
    z.object({
      status: z.literal("SUCCESS"),
      credentialBundle: z.string(),
      user: whoamiResponseSchema.optional(),
    }),
    z.object({
      status: z.literal("MFA_REQUIRED"),
      encryptedPayload: z.string(),
      multiFactors: z.array(multiFactorInfoSchema),
    }),
  ]),
);

/** `/v1/prepare-oauth`: the PKCE challenge, the request key and the providers. */
export const prepareOauthResponseSchema = schemaFor<PrepareOauthResponse>()(
  z.object({
    codeChallenge: z.string(),
    requestKey: z.string(),
    authProviders: z.array(
      z.object({
        id: z.string(),
        isCustomProvider: z.boolean().optional(),
        clientId: z.string(),
        authEndpoint: z.string(),
        scope: z.string().optional(),
        authParams: z.record(z.string(), z.string()).optional(),
      }),
    ),
  }),
);

/** `/v1/sign-payload`: the signature, hex r‖s‖v. */
export const signPayloadResponseSchema = schemaFor<SignPayloadResponse>()(
  z.object({ signature: z.templateLiteral(["0x", z.string().regex(/^[0-9a-fA-F]+$/)]) }),
);

const oauthProvidersSchema = z.array(
  z.object({
    providerId: z.string(),
    issuer: z.string(),
    providerName: z.string().optional(),
    userDisplayName: z.string().optional(),
  }),
);

/** `/v1/list-auth-methods`: the user's ways to sign in. */
export const authMethodsResponseSchema = schemaFor<AuthMethods>()(
  z.object({
    email: z.string().optional(),
    oauthProviders: oauthProvidersSchema,
    passkeys: z.array(z.object({ authenticatorId: z.string(), name: z.string(), createdAt: z.number() })),
    mfaFactors: z.array(multiFactorInfoSchema).optional(),
  }),
);

/** `/v1/add-oauth-provider`: the user's linked providers after the change. */
export const addOauthProviderResponseSchema = schemaFor<AddOauthProviderResponse>()(
  z.object({ oauthProviders: oauthProvidersSchema }),
);

/** An answer with nothing in it: `{}`. */
export const emptyResponseSchema = schemaFor<Record<string, never>>()(z.object({}));

/** `/v1/init-otp`: the id of the code mailed to the contact. */
export const initOtpResponseSchema = schemaFor<InitOtpResponse>()(z.object({ otpId: z.string() }));

/** `/v1/verify-otp`: a single-use token naming the verified contact. */
export const verifyOtpResponseSchema = schemaFor<VerifyOtpResponse>()(
  z.object({ verificationToken: z.string() }),
);

/** The user's second factors after a change (list, verify, delete). */
export const multiFactorsResponseSchema = schemaFor<MultiFactorsResponse>()(
  z.object({ multiFactors: z.array(multiFactorInfoSchema) }),
);

/** `/v1/auth-request-multi-factor`: the new factor and its otpauth:// URL. */
export const requestMultiFactorResponseSchema = schemaFor<RequestMultiFactorResponse>()(
  z.object({
    multiFactorType: multiFactorTypeSchema,
    multiFactorId: z.string(),
    multiFactorTotpUrl: z.string(),
  }),
);

/** `/v1/auth-validate-multi-factors`: the credential bundle the right codes release. */
export const validateMultiFactorsResponseSchema = schemaFor<ValidateMultiFactorsResponse>()(
  z.object({
    payload: z.object({ credentialBundle: z.string() }),
    multiFactors: z.array(multiFactorInfoSchema),
  }),
);

/** `/v1/siwe/nonce`: a single-use nonce and its life. */
export const siweNonceResponseSchema = schemaFor<SiweNonceResponse>()(
  z.object({ nonce: z.string(), issuedAt: z.iso.datetime(), expirationTime: z.iso.datetime() }),
);

/** `/v1/siwe/verify`: the session token and who it names. */
export const siweVerifyResponseSchema = schemaFor<SiweVerifyResponse>()(
  z.object({
    token: z.string(),
    address: z.string(),
    chainId: z.number().int(),
    expiresAt: z.iso.datetime(),
  }),
);

/** `/v1/siwe/session`: what a valid session token says. */
export const siweSessionResponseSchema = schemaFor<SiweSessionResponse>()(
  z.object({
    address: z.string(),
    chainId: z.number().int(),
    appId: z.string(),
    expiresAt: z.iso.datetime(),
  }),
);

/** `/v1/grants/create` and `/v1/grants/revoke`: the grant as it now is. */
export const grantResponseSchema = schemaFor<GrantResponse>()(
  z.object({ grant: schemaFor<Grant>()(grantSchema) }),
);

/** `/v1/grants/list`: the user's grants, newest first. */
export const grantsResponseSchema = schemaFor<GrantsResponse>()(z.object({ grants: z.array(grantSchema) }));

/** `/v1/create-split-wallet`: the split wallet made. */
export const createSplitWalletResponseSchema = schemaFor<CreateSplitWalletResponse>()(
  z.object({ walletId: z.string(), addresses: z.array(z.string()) }),
);

/** `/v1/begin-split-wallet`: the sealed user share. */
export const beginSplitWalletResponseSchema = schemaFor<BeginSplitWalletResponse>()(
  z.object({ walletId: z.string(), userShare: z.string() }),
);

/** `/v1/complete-split-wallet`: the wallet, now split. */
export const completeSplitWalletResponseSchema = schemaFor<CompleteSplitWalletResponse>()(
  z.object({ walletId: z.string(), addresses: z.array(z.string()) }),
);

/** `/v1/set-recovery-share`: the recovery blob stored. */
export const setRecoveryShareResponseSchema = schemaFor<SetRecoveryShareResponse>()(
  z.object({ walletId: z.string(), kind: z.enum(["passkey", "code"]) }),
);

/** `/v1/get-recovery-shares`: the user's recovery blobs. */
export const getRecoverySharesResponseSchema = schemaFor<GetRecoverySharesResponse>()(
  z.object({
    recoveryShares: z.array(
      schemaFor<RecoveryShareRecord>()(
        z.object({
          walletId: z.string(),
          kind: z.enum(["passkey", "code"]),
          credentialId: z.string().optional(),
          blob: z.object({ v: z.literal(1), salt: z.string(), iv: z.string(), ciphertext: z.string() }),
          createdAt: z.number(),
          addresses: z.array(z.string()).optional(),
        }),
      ),
    ),
  }),
);

/** Every signer-API route's answer (2xx), by route name: checked against the table's response types. */
export const signerResponses = {
  signerConfig: signerConfigResponseSchema,
  lookup: lookupResponseSchema,
  signup: signupResponseSchema,
  auth: authResponseSchema,
  otp: otpResponseSchema,
  whoami: whoamiResponseSchema,
  prepareOauth: prepareOauthResponseSchema,
  signPayload: signPayloadResponseSchema,
  listAuthMethods: authMethodsResponseSchema,
  addOauthProvider: addOauthProviderResponseSchema,
  removeOauthProvider: emptyResponseSchema,
  initOtp: initOtpResponseSchema,
  verifyOtp: verifyOtpResponseSchema,
  updateEmailAuth: emptyResponseSchema,
  authListMultiFactors: multiFactorsResponseSchema,
  authRequestMultiFactor: requestMultiFactorResponseSchema,
  authVerifyMultiFactor: multiFactorsResponseSchema,
  authDeleteMultiFactors: multiFactorsResponseSchema,
  authValidateMultiFactors: validateMultiFactorsResponseSchema,
  siweNonce: siweNonceResponseSchema,
  siweVerify: siweVerifyResponseSchema,
  siweSession: siweSessionResponseSchema,
  createGrant: grantResponseSchema,
  listGrants: grantsResponseSchema,
  revokeGrant: grantResponseSchema,
  createSplitWallet: createSplitWalletResponseSchema,
  beginSplitWallet: beginSplitWalletResponseSchema,
  completeSplitWallet: completeSplitWalletResponseSchema,
  setRecoveryShare: setRecoveryShareResponseSchema,
  getRecoveryShares: getRecoverySharesResponseSchema,
} as const satisfies { [N in SignerEndpointName]: z.ZodType<RouteResponse<SignerRoutes[N]>> };

/** Body of every non-2xx answer of the signer API: `{error, code, data?}`. */
export const signerErrorBodySchema = schemaFor<SignerErrorBody>()(
  z.object({ error: z.string(), code: errorCodeSchema, data: z.record(z.string(), z.unknown()).optional() }),
);
