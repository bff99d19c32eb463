import { z } from "zod";
import { defineEndpoint } from "./defineEndpoint";
import {
  type AuthResponse,
  authRequestSchema,
  emailSignupRequestSchema,
  type LookupResponse,
  lookupRequestSchema,
  type OtpResponse,
  otpRequestSchema,
  type SignupResponse,
} from "./email";
import {
  type MultiFactorsResponse,
  mfaDeleteSchema,
  mfaListSchema,
  mfaRequestSchema,
  mfaValidateSchema,
  mfaVerifySchema,
  type RequestMultiFactorResponse,
  type ValidateMultiFactorsResponse,
} from "./mfa";
import { type PrepareOauthResponse, prepareOauthRequestSchema } from "./oauth";
import { passkeySignupRequestSchema } from "./passkeys";
import {
  type AddOauthProviderResponse,
  type AuthMethods,
  listAuthMethodsSchema,
  type SignerConfigResponse,
  signerConfigRequestSchema,
  type WhoamiResponse,
} from "./session";
import type { SignPayloadResponse } from "./signing";
import { stampedRequestBodySchema } from "./stampedRequest";

/** Query types of the signer API's own read-only stamped calls (beside the key-management ones). */
export const signerQueryTypes = {
  listAuthMethods: "QUERY_TYPE_LIST_AUTH_METHODS",
  listMultiFactors: "QUERY_TYPE_LIST_MULTI_FACTORS",
} as const;

const WHOAMI_URL = "/public/v1/query/whoami";

/**
 * The signer API (`POST {host}/signer/v1/*`, DESIGN §3.1): the one table the client calls from and the
 * server registers routes from. A test checks that every entry has a route.
 */
export const signerApi = {
  signerConfig: defineEndpoint<SignerConfigResponse>()({
    path: "/v1/signer-config",
    request: signerConfigRequestSchema,
  }),
  lookup: defineEndpoint<LookupResponse>()({ path: "/v1/lookup", request: lookupRequestSchema }),
  signup: defineEndpoint<SignupResponse>()({
    path: "/v1/signup",
    request: z.union([passkeySignupRequestSchema, emailSignupRequestSchema]),
  }),
  auth: defineEndpoint<AuthResponse>()({ path: "/v1/auth", request: authRequestSchema }),
  otp: defineEndpoint<OtpResponse>()({ path: "/v1/otp", request: otpRequestSchema }),
  whoami: defineEndpoint<WhoamiResponse>()({
    path: "/v1/whoami",
    request: stampedRequestBodySchema,
    stamped: { url: WHOAMI_URL, type: "QUERY_TYPE_WHOAMI", kind: "query" },
  }),
  prepareOauth: defineEndpoint<PrepareOauthResponse>()({
    path: "/v1/prepare-oauth",
    request: prepareOauthRequestSchema,
  }),
  signPayload: defineEndpoint<SignPayloadResponse>()({
    path: "/v1/sign-payload",
    request: stampedRequestBodySchema,
    stamped: {
      url: "/public/v1/submit/sign_raw_payload",
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      kind: "submit",
    },
  }),
  listAuthMethods: defineEndpoint<AuthMethods>()({
    path: "/v1/list-auth-methods",
    request: listAuthMethodsSchema,
    stamped: { url: WHOAMI_URL, type: signerQueryTypes.listAuthMethods, kind: "query" },
  }),
  addOauthProvider: defineEndpoint<AddOauthProviderResponse>()({
    path: "/v1/add-oauth-provider",
    request: stampedRequestBodySchema,
    stamped: {
      url: "/public/v1/submit/create_oauth_providers",
      type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
      kind: "submit",
    },
  }),
  removeOauthProvider: defineEndpoint<Record<string, never>>()({
    path: "/v1/remove-oauth-provider",
    request: stampedRequestBodySchema,
    stamped: {
      url: "/public/v1/submit/delete_oauth_providers",
      type: "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
      kind: "submit",
    },
  }),
  authListMultiFactors: defineEndpoint<MultiFactorsResponse>()({
    path: "/v1/auth-list-multi-factors",
    request: mfaListSchema,
    stamped: { url: WHOAMI_URL, type: signerQueryTypes.listMultiFactors, kind: "query" },
  }),
  authRequestMultiFactor: defineEndpoint<RequestMultiFactorResponse>()({
    path: "/v1/auth-request-multi-factor",
    request: mfaRequestSchema,
    stamped: { url: WHOAMI_URL, type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR", kind: "operation" },
  }),
  authVerifyMultiFactor: defineEndpoint<MultiFactorsResponse>()({
    path: "/v1/auth-verify-multi-factor",
    request: mfaVerifySchema,
    stamped: { url: WHOAMI_URL, type: "OPERATION_TYPE_VERIFY_MULTI_FACTOR", kind: "operation" },
  }),
  authDeleteMultiFactors: defineEndpoint<MultiFactorsResponse>()({
    path: "/v1/auth-delete-multi-factors",
    request: mfaDeleteSchema,
    stamped: { url: WHOAMI_URL, type: "OPERATION_TYPE_DELETE_MULTI_FACTORS", kind: "operation" },
  }),
  authValidateMultiFactors: defineEndpoint<ValidateMultiFactorsResponse>()({
    path: "/v1/auth-validate-multi-factors",
    request: mfaValidateSchema,
  }),
} as const;
export type SignerApi = typeof signerApi;
export type SignerEndpointName = keyof SignerApi;

export * from "./defineEndpoint";
export * from "./email";
export * from "./mfa";
export * from "./oauth";
export * from "./passkeys";
export * from "./session";
export * from "./signing";
export * from "./stampedRequest";
