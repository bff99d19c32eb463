/**
 * The signer API's routes (`POST {host}/signer/v1/*`, DESIGN §3.1) as plain data: each endpoint's path,
 * its stamped binding, and (at the type level only) its request and response. This module imports no
 * value, so a client that calls the API ships no schema library: the request types come from the
 * schemas by `import type`, and the server pairs each route with its schema in `./index.ts`.
 */
import type { z } from "zod";
import type { ActivityType, activityTypes } from "../keyManagement/activities";
import type {
  InitOtpResponse,
  initOtpRequestSchema,
  VerifyOtpResponse,
  verifyOtpRequestSchema,
} from "./contact";
import type {
  BeginSplitWalletResponse,
  CompleteSplitWalletResponse,
  CreateSplitWalletResponse,
  GetRecoverySharesResponse,
  SetRecoveryShareResponse,
} from "./custody";
import type {
  AuthResponse,
  authRequestSchema,
  emailSignupRequestSchema,
  LookupResponse,
  lookupRequestSchema,
  OtpResponse,
  otpRequestSchema,
  SignupResponse,
} from "./email";
import type {
  createGrantRequestSchema,
  GrantResponse,
  GrantsResponse,
  grantOperations,
  listGrantsRequestSchema,
  revokeGrantRequestSchema,
} from "./grants";
import type {
  MultiFactorsResponse,
  mfaDeleteSchema,
  mfaListSchema,
  mfaRequestSchema,
  mfaValidateSchema,
  mfaVerifySchema,
  multiFactorOperations,
  RequestMultiFactorResponse,
  ValidateMultiFactorsResponse,
} from "./mfa";
import type { PrepareOauthResponse, prepareOauthRequestSchema } from "./oauth";
import type { passkeySignupRequestSchema } from "./passkeys";
import type {
  AddOauthProviderResponse,
  AuthMethods,
  listAuthMethodsSchema,
  SignerConfigResponse,
  signerConfigRequestSchema,
  WhoamiResponse,
} from "./session";
import type { SignPayloadResponse } from "./signing";
import type {
  SiweNonceResponse,
  SiweSessionResponse,
  SiweVerifyResponse,
  siweNonceRequestSchema,
  siweSessionRequestSchema,
  siweVerifyRequestSchema,
} from "./siwe";
import type { stampedRequestBodySchema } from "./stampedRequest";

/**
 * How a signer endpoint's `stampedRequest` is bound to the operation it performs (DESIGN §3.2): the
 * path its `url` must name, and the `type` its signed body must carry. A body signed for one operation
 * is refused by every other, whatever url or outer fields travel beside it.
 * - `query`: read-only; the body may omit `type` (reference clients send none), else it must match.
 * - `submit`: a key-management activity; `type` must match and the activity's own rules apply.
 * - `operation`: a signer-only change (MFA); `type` must match, the body carries the parameters, and
 *   the stamp is single use.
 */
export interface StampedBinding {
  url: `/public/v1/${string}`;
  type: string;
  kind: "query" | "submit" | "operation";
}

/** One signer-API route: its path and, if stamped, its binding; the request and response are type-level. */
export interface Route<Request = unknown, Response = unknown, Parameters = unknown> {
  path: `/v1/${string}`;
  stamped?: StampedBinding;
  /** Called by the app's backend (server to server, with its API key), never by the browser client. */
  backendOnly?: true;
  /** Type-level only: the JSON body the endpoint takes. */
  readonly _request?: Request;
  /** Type-level only: what the endpoint answers. */
  readonly _response?: Response;
  /** Type-level only: the `parameters` of the stamped body (submit and operation routes). */
  readonly _parameters?: Parameters;
}

/** A route that carries a stamped request: its binding is known. */
export type StampedRoute<Request = unknown, Response = unknown, Parameters = unknown> = Route<
  Request,
  Response,
  Parameters
> & { stamped: StampedBinding };

export type RouteRequest<R> = R extends Route<infer Q> ? Q : never;
export type RouteResponse<R> = R extends Route<unknown, infer S> ? S : never;
/** The parameters a stamped route's signed body carries (`never` for a query). */
export type RouteParameters<R> = R extends Route<unknown, unknown, infer P> ? Exclude<P, undefined> : never;

/** A route whose body is what `Schema` accepts and whose answer is `Response`. */
const route = <Schema extends z.ZodType, Response>(r: {
  path: `/v1/${string}`;
  backendOnly?: true;
}): Route<z.input<Schema>, Response, never> => r;

/** A stamped route: `binding` says what its stamped body is for, `Parameters` what that body carries. */
const stamped = <Schema extends z.ZodType, Response, Parameters = never>(
  path: `/v1/${string}`,
  binding: StampedBinding,
): StampedRoute<z.input<Schema>, Response, Parameters> => ({ path, stamped: binding });

/** The parameters of a key-management activity, as a client writes them. */
type ActivityInput<T extends ActivityType> = z.input<(typeof activityTypes)[T]["parameters"]>;
/** The parameters of a signer-only operation (MFA), as a client writes them. */
type OperationInput<T extends keyof typeof multiFactorOperations> = z.input<
  (typeof multiFactorOperations)[T]
>;

const WHOAMI_URL = "/public/v1/query/whoami";

/** A read of the user's organisation, named by its query `type`. */
const query = (type: string): StampedBinding => ({ url: WHOAMI_URL, type, kind: "query" });
/** A signer-only change (MFA), named by its operation `type`; its stamp is single use. */
const operation = (type: keyof typeof multiFactorOperations): StampedBinding => ({
  url: WHOAMI_URL,
  type,
  kind: "operation",
});
/** A grant change (create, revoke), named by its operation `type`; its stamp is single use. */
const grantOperation = (type: keyof typeof grantOperations): StampedBinding => ({
  url: WHOAMI_URL,
  type,
  kind: "operation",
});
/** The parameters of a grant change, as a client writes them. */
type GrantOperationInput<T extends keyof typeof grantOperations> = z.input<(typeof grantOperations)[T]>;
/** A submit binding: the activity `type` at its key-management `path`. */
const submit = (path: string, type: ActivityType): StampedBinding => ({
  url: `/public/v1/submit/${path}`,
  type,
  kind: "submit",
});

/** Query types of the signer API's own read-only stamped calls (beside the key-management ones). */
export const signerQueryTypes = {
  listAuthMethods: "QUERY_TYPE_LIST_AUTH_METHODS",
  listMultiFactors: "QUERY_TYPE_LIST_MULTI_FACTORS",
  listGrants: "QUERY_TYPE_LIST_GRANTS",
} as const;

/**
 * Every signer-API route: the one table the client calls from and the server registers routes from (a
 * test checks that every entry has a route, and the client calls nothing else, and every entry but the
 * `backendOnly` ones).
 */
export const signerRoutes = {
  signerConfig: route<typeof signerConfigRequestSchema, SignerConfigResponse>({ path: "/v1/signer-config" }),
  lookup: route<typeof lookupRequestSchema, LookupResponse>({ path: "/v1/lookup" }),
  signup: route<typeof passkeySignupRequestSchema | typeof emailSignupRequestSchema, SignupResponse>({
    path: "/v1/signup",
  }),
  auth: route<typeof authRequestSchema, AuthResponse>({ path: "/v1/auth" }),
  otp: route<typeof otpRequestSchema, OtpResponse>({ path: "/v1/otp" }),
  whoami: stamped<typeof stampedRequestBodySchema, WhoamiResponse>("/v1/whoami", query("QUERY_TYPE_WHOAMI")),
  prepareOauth: route<typeof prepareOauthRequestSchema, PrepareOauthResponse>({ path: "/v1/prepare-oauth" }),
  signPayload: stamped<
    typeof stampedRequestBodySchema,
    SignPayloadResponse,
    ActivityInput<"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2">
  >("/v1/sign-payload", submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")),
  listAuthMethods: stamped<typeof listAuthMethodsSchema, AuthMethods>(
    "/v1/list-auth-methods",
    query(signerQueryTypes.listAuthMethods),
  ),
  addOauthProvider: stamped<
    typeof stampedRequestBodySchema,
    AddOauthProviderResponse,
    ActivityInput<"ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS">
  >("/v1/add-oauth-provider", submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS")),
  removeOauthProvider: stamped<
    typeof stampedRequestBodySchema,
    Record<string, never>,
    ActivityInput<"ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS">
  >("/v1/remove-oauth-provider", submit("delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS")),
  initOtp: route<typeof initOtpRequestSchema, InitOtpResponse>({ path: "/v1/init-otp" }),
  verifyOtp: route<typeof verifyOtpRequestSchema, VerifyOtpResponse>({ path: "/v1/verify-otp" }),
  updateEmailAuth: stamped<
    typeof stampedRequestBodySchema,
    Record<string, never>,
    ActivityInput<"ACTIVITY_TYPE_UPDATE_USER_EMAIL">
  >("/v1/update-email-auth", submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL")),
  authListMultiFactors: stamped<typeof mfaListSchema, MultiFactorsResponse>(
    "/v1/auth-list-multi-factors",
    query(signerQueryTypes.listMultiFactors),
  ),
  authRequestMultiFactor: stamped<
    typeof mfaRequestSchema,
    RequestMultiFactorResponse,
    OperationInput<"OPERATION_TYPE_REQUEST_MULTI_FACTOR">
  >("/v1/auth-request-multi-factor", operation("OPERATION_TYPE_REQUEST_MULTI_FACTOR")),
  authVerifyMultiFactor: stamped<
    typeof mfaVerifySchema,
    MultiFactorsResponse,
    OperationInput<"OPERATION_TYPE_VERIFY_MULTI_FACTOR">
  >("/v1/auth-verify-multi-factor", operation("OPERATION_TYPE_VERIFY_MULTI_FACTOR")),
  authDeleteMultiFactors: stamped<
    typeof mfaDeleteSchema,
    MultiFactorsResponse,
    OperationInput<"OPERATION_TYPE_DELETE_MULTI_FACTORS">
  >("/v1/auth-delete-multi-factors", operation("OPERATION_TYPE_DELETE_MULTI_FACTORS")),
  authValidateMultiFactors: route<typeof mfaValidateSchema, ValidateMultiFactorsResponse>({
    path: "/v1/auth-validate-multi-factors",
  }),
  siweNonce: route<typeof siweNonceRequestSchema, SiweNonceResponse>({ path: "/v1/siwe/nonce" }),
  siweVerify: route<typeof siweVerifyRequestSchema, SiweVerifyResponse>({ path: "/v1/siwe/verify" }),
  siweSession: route<typeof siweSessionRequestSchema, SiweSessionResponse>({
    path: "/v1/siwe/session",
    backendOnly: true,
  }),
  createGrant: stamped<
    typeof createGrantRequestSchema,
    GrantResponse,
    GrantOperationInput<"OPERATION_TYPE_CREATE_GRANT">
  >("/v1/grants/create", grantOperation("OPERATION_TYPE_CREATE_GRANT")),
  listGrants: stamped<typeof listGrantsRequestSchema, GrantsResponse>(
    "/v1/grants/list",
    query(signerQueryTypes.listGrants),
  ),
  /** Split custody: the wallet the user's key holder made (the stamped request carries the user share). */
  createSplitWallet: stamped<
    typeof stampedRequestBodySchema,
    CreateSplitWalletResponse,
    ActivityInput<"ACTIVITY_TYPE_CREATE_SPLIT_WALLET">
  >("/v1/create-split-wallet", submit("create_split_wallet", "ACTIVITY_TYPE_CREATE_SPLIT_WALLET")),
  /** Split custody: a whole wallet's first phase of splitting (the user share sealed to the holder's key). */
  beginSplitWallet: stamped<
    typeof stampedRequestBodySchema,
    BeginSplitWalletResponse,
    ActivityInput<"ACTIVITY_TYPE_BEGIN_SPLIT_WALLET">
  >("/v1/begin-split-wallet", submit("begin_split_wallet", "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET")),
  /** Split custody: the second phase (the stamped request carries the user share); the whole copy goes. */
  completeSplitWallet: stamped<
    typeof stampedRequestBodySchema,
    CompleteSplitWalletResponse,
    ActivityInput<"ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET">
  >("/v1/complete-split-wallet", submit("complete_split_wallet", "ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET")),
  /** Split custody: stores the user share encrypted under a passkey's PRF output or a recovery code. */
  setRecoveryShare: stamped<
    typeof stampedRequestBodySchema,
    SetRecoveryShareResponse,
    ActivityInput<"ACTIVITY_TYPE_SET_RECOVERY_SHARE">
  >("/v1/set-recovery-share", submit("set_recovery_share", "ACTIVITY_TYPE_SET_RECOVERY_SHARE")),
  /** Split custody: the user's recovery blobs, for a new device. */
  getRecoveryShares: stamped<typeof stampedRequestBodySchema, GetRecoverySharesResponse>(
    "/v1/get-recovery-shares",
    { url: "/public/v1/query/get_recovery_shares", type: "QUERY_TYPE_GET_RECOVERY_SHARES", kind: "query" },
  ),
  revokeGrant: stamped<
    typeof revokeGrantRequestSchema,
    GrantResponse,
    GrantOperationInput<"OPERATION_TYPE_REVOKE_GRANT">
  >("/v1/grants/revoke", grantOperation("OPERATION_TYPE_REVOKE_GRANT")),
} as const;
export type SignerRoutes = typeof signerRoutes;
export type SignerEndpointName = keyof SignerRoutes;
