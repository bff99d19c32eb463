import {
  ACTIVITY_POLL_INTERVAL_MS,
  type Activity,
  type QueryName,
  queryTypes,
  type Route,
  type RouteRequest,
  type RouteResponse,
  SDK_VERSION_HEADER,
  type StampedRequest,
  signerQueryTypes,
  signerRoutes,
} from "@latchkey/protocol/wire";
import { ActivityError, SignerApiError } from "../errors";
import type { KeyHolder } from "../keyHolders/types";
import { SDK_VERSION } from "../version";
import type {
  Authenticator,
  AuthMethods,
  AuthResponse,
  CreateReadWriteSessionParams,
  CreateReadWriteSessionResult,
  EmailAuthParams,
  EmailSignupParams,
  LookupResponse,
  MultiFactorCode,
  MultiFactorsResponse,
  OtpParams,
  OtpResponse,
  PasskeyAttestation,
  PasskeySignupParams,
  PasskeyWhoamiResponse,
  PrepareOauthResponse,
  RequestMultiFactorResponse,
  SignerConfigResponse,
  SignPayloadResponse,
  SignRawPayloadParams,
  SignupResponse,
  Stamper,
  ValidateMultiFactorsResponse,
  WhoamiResponse,
} from "./types";

/** Where the service is, how the app authenticates to it, and who stamps requests. */
export interface SignerClientOptions {
  /** Origin (and optional path prefix) of the signer service, e.g. `https://auth.example.com`. */
  baseUrl: string;
  /** The app's API key; or `jwt`. */
  apiKey?: string;
  jwt?: string;
  keyHolder: KeyHolder;
  fetch?: typeof fetch;
  /** Clock for `timestampMs` of submit bodies. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  pollIntervalMs?: number;
}

/** The signer API's answers for a signature the app's signing policy refused or holds, by code. */
const POLICY_ANSWERS = {
  POLICY_DENIED: "ACTIVITY_STATUS_REJECTED",
  ACTIVITY_CONSENSUS_NEEDED: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
} as const;

/** The signed transaction of a completed `sign_transaction` activity. */
export function signedTransactionOf(activity: Activity): `0x${string}` {
  const signed = (activity.result as { signTransactionResult?: { signedTransaction?: string } })
    .signTransactionResult?.signedTransaction;
  if (typeof signed !== "string" || !signed.startsWith("0x")) {
    throw new ActivityError({
      id: activity.id,
      status: activity.status,
      failure: { code: "NO_RESULT", message: "The signing activity carried no signed transaction" },
    });
  }
  return signed as `0x${string}`;
}

const TERMINAL_FAILURES = new Set([
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
]);

/**
 * A step-up proof a request may carry (the service's STEP_UP_REQUIRED): a verification token of the
 * user's current email, or a code of an authenticator-app factor the user already had.
 */
export interface StepUpProof {
  verificationToken?: string | undefined;
  multiFactor?: { multiFactorId: string; multiFactorCode: string } | undefined;
}

/** Only the proof's fields that are set, for a signed body. */
function proofOf(p: StepUpProof): StepUpProof {
  return {
    ...(p.verificationToken ? { verificationToken: p.verificationToken } : {}),
    ...(p.multiFactor ? { multiFactor: p.multiFactor } : {}),
  };
}

/** A JSON-RPC 2.0 answer of the service's `/rpc/v1`: a result, or an error with its reason in `data.code`. */
export interface JsonRpcAnswer {
  result?: unknown;
  error?: { code?: number; message?: string; data?: { code?: unknown } };
}

/**
 * Typed HTTP client of the signer API (`/signer/v1/*`, DESIGN §3.1) and of the stamped key-management
 * API (`/public/v1/*`, §3.3). Requests that act for the user are stamped by the key holder, which never
 * hands its keys out.
 *
 * @example
 * const client = new SignerClient({ baseUrl, apiKey, keyHolder: createMemoryKeyHolder() });
 * const { orgId } = await client.lookup({ email: "ada@example.com" });
 */
export class SignerClient {
  readonly baseUrl: string;
  readonly keyHolder: KeyHolder;
  readonly #auth: string | undefined;
  readonly #fetch: typeof fetch | undefined;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #pollIntervalMs: number;

  constructor(options: SignerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.keyHolder = options.keyHolder;
    const token = options.apiKey ?? options.jwt;
    this.#auth = token ? `Bearer ${token}` : undefined;
    this.#fetch = options.fetch;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#pollIntervalMs = options.pollIntervalMs ?? ACTIVITY_POLL_INTERVAL_MS;
  }

  // ---- transport ----

  async #post<T>(path: string, body: string, headers: Record<string, string> = {}): Promise<T> {
    const doFetch = this.#fetch ?? globalThis.fetch;
    const response = await doFetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [SDK_VERSION_HEADER]: SDK_VERSION,
        ...(this.#auth ? { authorization: this.#auth } : {}),
        ...headers,
      },
      body,
    });
    const text = await response.text();
    if (!response.ok) throw new SignerApiError({ status: response.status, path, responseText: text });
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * One signer-API call, typed from the protocol's route table (the same table the service registers
   * its routes from).
   *
   * @example
   * const { orgId } = await client.call(signerRoutes.lookup, { email: "ada@example.com" });
   */
  call<R extends Route>(route: R, body: RouteRequest<R>): Promise<RouteResponse<R>> {
    return this.#post(`/signer${route.path}`, JSON.stringify(body));
  }

  /**
   * What answers at the service's address: `latchkey` (its `/healthz`, readable from any origin, says so),
   * `other` (something answers, but not a Latchkey service at this URL), or `nothing` (a network failure).
   */
  async probe(): Promise<"latchkey" | "other" | "nothing"> {
    const doFetch = this.#fetch ?? globalThis.fetch;
    const url = `${this.baseUrl}/healthz`;
    try {
      const response = await doFetch(url);
      const body = (await response.json().catch(() => null)) as { service?: unknown } | null;
      return response.ok && body?.service === "latchkey" ? "latchkey" : "other";
    } catch {
      // Refused by CORS or not there: an opaque request in a browser tells the two apart.
      if (typeof document === "undefined") return "nothing";
      return doFetch(url, { mode: "no-cors" }).then(
        () => "other" as const,
        () => "nothing" as const,
      );
    }
  }

  /** POST `/signer{path}` with a JSON body (prefer `call` with an entry of `signerApi`). */
  request<T>(path: `/v1/${string}`, body: object): Promise<T> {
    return this.#post<T>(`/signer${path}`, JSON.stringify(body));
  }

  /**
   * A key-management request to be carried in a signer call, signed by the session key (or by `stamper`,
   * e.g. a passkey).
   */
  async stampRequest(
    path: `/public/v1/${string}`,
    body: object,
    stamper: Stamper = (text) => this.keyHolder.stamp(text),
  ): Promise<StampedRequest> {
    const text = JSON.stringify(body);
    const { stampHeaderName, stampHeaderValue } = await stamper(text);
    return { body: text, stamp: { stampHeaderName, stampHeaderValue }, url: `${this.baseUrl}${path}` };
  }

  // Fresh bodies are single use and stamps are deterministic: two bodies in the same millisecond would
  // be one request to the service, so the timestamp strictly increases per client.
  #lastTimestampMs = 0;
  #timestampMs(): string {
    this.#lastTimestampMs = Math.max(this.#now(), this.#lastTimestampMs + 1);
    return String(this.#lastTimestampMs);
  }

  #submitBody(type: string, organizationId: string, parameters: object) {
    return { type, timestampMs: this.#timestampMs(), organizationId, parameters };
  }

  // ---- signer API (DESIGN §3.1) ----

  /** A single-use Sign-In with Ethereum nonce for this app, address and chain (EIP-4361). */
  siweNonce(params: { address: `0x${string}`; chainId: number }) {
    return this.call(signerRoutes.siweNonce, params);
  }

  /** Verifies a signed SIWE message; answers the service's token for the app's backend. */
  siweVerify(params: { message: string; signature: `0x${string}` }) {
    return this.call(signerRoutes.siweVerify, params);
  }

  signerConfig(): Promise<SignerConfigResponse> {
    return this.call(signerRoutes.signerConfig, {});
  }

  lookup(params: { email: string }): Promise<LookupResponse> {
    return this.call(signerRoutes.lookup, params);
  }

  signup(params: EmailSignupParams | PasskeySignupParams): Promise<SignupResponse> {
    return this.call(signerRoutes.signup, params);
  }

  /** Starts email auth; an MFA-required answer throws a SignerApiError carrying `multiFactors`. */
  auth(params: EmailAuthParams): Promise<AuthResponse> {
    return this.call(signerRoutes.auth, params);
  }

  otp(params: OtpParams): Promise<OtpResponse> {
    return this.call(signerRoutes.otp, params);
  }

  /** The user behind the held session key, in organisation `orgId`. */
  async whoami(params: { orgId: string }): Promise<WhoamiResponse> {
    const stampedRequest = await this.stampRequest("/public/v1/query/whoami", {
      type: queryTypes.whoami,
      organizationId: params.orgId,
    });
    return this.call(signerRoutes.whoami, { stampedRequest });
  }

  /**
   * DESIGN's passkey lookup: a passkey-stamped whoami addressed to the app's root organisation answers
   * the user the passkey belongs to, and the credential id. Each call is a prompt; the stamp is single use.
   */
  async lookupUserWithPasskey(params: {
    rootOrgId: string;
    stamper: Stamper;
  }): Promise<PasskeyWhoamiResponse> {
    const stampedRequest = await this.stampRequest(
      "/public/v1/query/whoami",
      { type: queryTypes.whoami, organizationId: params.rootOrgId, timestampMs: this.#timestampMs() },
      params.stamper,
    );
    // A passkey-stamped whoami always answers the credential id.
    return this.call(signerRoutes.whoami, { stampedRequest }) as Promise<PasskeyWhoamiResponse>;
  }

  prepareOauth(params: { nonce: string }): Promise<PrepareOauthResponse> {
    return this.call(signerRoutes.prepareOauth, params);
  }

  /**
   * Signs a raw payload with the user's wallet: answers hex r‖s‖v (65 bytes). A signature the app's
   * signing policy refuses or holds for an admin throws an ActivityError (REJECTED or CONSENSUS_NEEDED),
   * as any other activity does.
   */
  async signPayload(params: SignRawPayloadParams): Promise<SignPayloadResponse> {
    const stampedRequest = await this.stampRequest(
      "/public/v1/submit/sign_raw_payload",
      this.#submitBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params.orgId, {
        signWith: params.signWith,
        payload: params.payload,
        encoding: params.encoding,
        hashFunction: params.hashFunction,
      }),
    );
    try {
      return await this.call(signerRoutes.signPayload, { stampedRequest });
    } catch (e) {
      const status =
        e instanceof SignerApiError ? POLICY_ANSWERS[e.code as keyof typeof POLICY_ANSWERS] : undefined;
      const activityId = e instanceof SignerApiError ? e.data?.activityId : undefined;
      if (!status || typeof activityId !== "string" || !(e instanceof SignerApiError)) throw e;
      throw new ActivityError(
        { id: activityId, status, failure: { code: e.code, message: e.message } },
        { cause: e },
      );
    }
  }

  /**
   * Signs an EVM transaction with the user's wallet (`sign_transaction`): the unsigned serialized
   * transaction goes to the service, which checks it against the app's signing policy and answers it
   * signed. Refused or held: an ActivityError (REJECTED or CONSENSUS_NEEDED) naming the activity.
   */
  async signTransaction(params: {
    orgId: string;
    signWith: string;
    unsignedTransaction: `0x${string}`;
  }): Promise<{ activityId: string; signedTransaction: `0x${string}` }> {
    const activity = await this.submit("sign_transaction", {
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      organizationId: params.orgId,
      parameters: {
        signWith: params.signWith,
        unsignedTransaction: params.unsignedTransaction,
        type: "TRANSACTION_TYPE_ETHEREUM",
      },
    });
    return { activityId: activity.id, signedTransaction: signedTransactionOf(activity) };
  }

  /** The user's ways to sign in; carries a stamped read of the user's organisation, typed for this call. */
  async listAuthMethods(params: { suborgId: string }): Promise<AuthMethods> {
    const stampedRequest = await this.stampRequest("/public/v1/query/whoami", {
      type: signerQueryTypes.listAuthMethods,
      organizationId: params.suborgId,
    });
    return this.call(signerRoutes.listAuthMethods, { suborgId: params.suborgId, stampedRequest });
  }

  /** Links social sign-ins; a session that is not a fresh sign-in adds a step-up proof (`StepUpProof`). */
  async addOauthProvider(
    params: {
      orgId: string;
      userId: string;
      /** `targetPublicKey`: this browser's target key, required for a token fetched while signed in. */
      oauthProviders: { providerName: string; oidcToken: string; targetPublicKey?: string }[];
    } & StepUpProof,
    options: { stamper?: Stamper } = {},
  ): Promise<{ oauthProviders: AuthMethods["oauthProviders"] }> {
    const stampedRequest = await this.stampRequest(
      "/public/v1/submit/create_oauth_providers",
      this.#submitBody("ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS", params.orgId, {
        userId: params.userId,
        oauthProviders: params.oauthProviders,
        ...proofOf(params),
      }),
      options.stamper,
    );
    return this.call(signerRoutes.addOauthProvider, { stampedRequest });
  }

  async removeOauthProvider(params: {
    orgId: string;
    userId: string;
    providerIds: string[];
  }): Promise<object> {
    const stampedRequest = await this.stampRequest(
      "/public/v1/submit/delete_oauth_providers",
      this.#submitBody("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", params.orgId, {
        userId: params.userId,
        providerIds: params.providerIds,
      }),
    );
    return this.call(signerRoutes.removeOauthProvider, { stampedRequest });
  }

  /** Mails a code to `contact` that proves it (before it becomes a sign-in method). */
  initOtp(params: { contact: string }): Promise<{ otpId: string }> {
    return this.call(signerRoutes.initOtp, { contact: params.contact, otpType: "OTP_TYPE_EMAIL" });
  }

  /** The mailed code for a verification token naming the contact (10 minutes, single use). */
  verifyOtp(params: { otpId: string; otpCode: string }): Promise<{ verificationToken: string }> {
    return this.call(signerRoutes.verifyOtp, params);
  }

  /**
   * Sets the user's email sign-in (with a verification token for it), or removes it (`userEmail: ""`).
   * A session that is not a fresh sign-in proves the account as it is: `currentEmailVerificationToken`
   * (a code mailed to the current email), `multiFactor`, or a passkey `stamper`.
   */
  async updateEmailAuth(
    params: {
      orgId: string;
      userId: string;
      userEmail: string;
      verificationToken?: string;
      currentEmailVerificationToken?: string;
      multiFactor?: StepUpProof["multiFactor"];
    },
    options: { stamper?: Stamper } = {},
  ): Promise<object> {
    const stampedRequest = await this.stampRequest(
      "/public/v1/submit/update_user_email",
      this.#submitBody("ACTIVITY_TYPE_UPDATE_USER_EMAIL", params.orgId, {
        userId: params.userId,
        userEmail: params.userEmail,
        ...(params.verificationToken ? { verificationToken: params.verificationToken } : {}),
        ...(params.currentEmailVerificationToken
          ? { currentEmailVerificationToken: params.currentEmailVerificationToken }
          : {}),
        ...(params.multiFactor ? { multiFactor: params.multiFactor } : {}),
      }),
      options.stamper,
    );
    return this.call(signerRoutes.updateEmailAuth, { stampedRequest });
  }

  // An MFA change is a stamped operation: the signed body names it and carries its parameters, so a
  // stamp made for anything else is refused (and this one is single use). The outer fields repeat them
  // for the reference shape; a step-up proof is signed only.
  async #mfaChange<E extends Route>(
    endpoint: E,
    orgId: string,
    parameters: Record<string, unknown>,
    proof: StepUpProof = {},
    stamper?: Stamper,
  ): Promise<RouteResponse<E>> {
    const type = endpoint.stamped?.type ?? "";
    const stampedRequest = await this.stampRequest(
      "/public/v1/query/whoami",
      this.#submitBody(type, orgId, { ...parameters, ...proofOf(proof) }),
      stamper,
    );
    return this.call(endpoint, { stampedRequest, ...parameters } as RouteRequest<E>);
  }

  async authListMultiFactors(params: { orgId: string }): Promise<MultiFactorsResponse> {
    const stampedRequest = await this.stampRequest("/public/v1/query/whoami", {
      type: signerQueryTypes.listMultiFactors,
      organizationId: params.orgId,
    });
    return this.call(signerRoutes.authListMultiFactors, { stampedRequest });
  }

  /** Starts a factor; a session that is not a fresh sign-in adds a step-up proof (or a passkey stamper). */
  authRequestMultiFactor(
    params: { orgId: string; multiFactorType: "totp" } & StepUpProof,
    options: { stamper?: Stamper } = {},
  ): Promise<RequestMultiFactorResponse> {
    return this.#mfaChange(
      signerRoutes.authRequestMultiFactor,
      params.orgId,
      { multiFactorType: params.multiFactorType },
      params,
      options.stamper,
    );
  }

  /** Confirms a factor; its request's step-up proof covers this for five minutes, else it needs one. */
  authVerifyMultiFactor(
    params: MultiFactorCode & { orgId: string } & StepUpProof,
    options: { stamper?: Stamper } = {},
  ): Promise<MultiFactorsResponse> {
    return this.#mfaChange(
      signerRoutes.authVerifyMultiFactor,
      params.orgId,
      { multiFactorId: params.multiFactorId, multiFactorCode: params.multiFactorCode },
      params,
      options.stamper,
    );
  }

  authDeleteMultiFactors(
    params: { orgId: string; multiFactorIds: string[] } & StepUpProof,
    options: { stamper?: Stamper } = {},
  ): Promise<MultiFactorsResponse> {
    return this.#mfaChange(
      signerRoutes.authDeleteMultiFactors,
      params.orgId,
      { multiFactorIds: params.multiFactorIds },
      params,
      options.stamper,
    );
  }

  authValidateMultiFactors(params: {
    encryptedPayload: string;
    multiFactors: MultiFactorCode[];
  }): Promise<ValidateMultiFactorsResponse> {
    return this.call(signerRoutes.authValidateMultiFactors, params);
  }

  // ---- the service's JSON-RPC endpoint (`/rpc/v1`) ----

  /**
   * One call to the service's JSON-RPC endpoint (`POST /rpc/v1`, authenticated by the app's key like the
   * signer API, and stamped by the session key so that the service charges the user's sponsorship limits
   * to this user only): the answer's `result` or `error` as sent, for the caller to interpret (e.g. the
   * Solana fee payer, `latchkey_requestFeePayer`, whose refusals name their reason in `error.data.code`).
   * One call a request, so its id only has to match its answer.
   */
  async jsonRpc(method: string, params: unknown): Promise<JsonRpcAnswer> {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const { stampHeaderName, stampHeaderValue } = await this.keyHolder.stamp(body);
    return this.#post<JsonRpcAnswer>("/rpc/v1", body, { [stampHeaderName]: stampHeaderValue });
  }

  // ---- key-management API (DESIGN §3.3) ----

  /**
   * A read-write session sealed to `targetPublicKey`. Stamped by a passkey and addressed to the app's
   * root organisation, this is the one-prompt passkey login: the result names the user's organisation.
   */
  async createReadWriteSession(
    params: CreateReadWriteSessionParams,
    options: { stamper?: Stamper } = {},
  ): Promise<CreateReadWriteSessionResult> {
    const { organizationId, expirationSeconds, ...rest } = params;
    const activity = await this.submit(
      "create_read_write_session",
      {
        type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        organizationId,
        parameters: {
          ...rest,
          ...(expirationSeconds !== undefined ? { expirationSeconds: String(expirationSeconds) } : {}),
        },
      },
      options,
    );
    const result = (activity.result as { createReadWriteSessionResultV2?: CreateReadWriteSessionResult })
      .createReadWriteSessionResultV2;
    if (!result?.credentialBundle) {
      throw new ActivityError({
        id: activity.id,
        status: activity.status,
        failure: { code: "NO_RESULT", message: "The session activity carried no credential bundle" },
      });
    }
    return result;
  }

  /**
   * Adds passkeys to the signed-in user (attestations from `navigator.credentials.create()`); a session
   * that is not a fresh sign-in adds a step-up proof (or a passkey stamper).
   */
  async createAuthenticators(
    params: {
      orgId: string;
      userId: string;
      authenticators: { authenticatorName: string; challenge: string; attestation: PasskeyAttestation }[];
    } & StepUpProof,
    options: { stamper?: Stamper } = {},
  ): Promise<{ authenticatorIds: string[] }> {
    const activity = await this.submit(
      "create_authenticators",
      {
        type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        organizationId: params.orgId,
        parameters: { userId: params.userId, authenticators: params.authenticators, ...proofOf(params) },
      },
      options,
    );
    return (activity.result as { createAuthenticatorsResult: { authenticatorIds: string[] } })
      .createAuthenticatorsResult;
  }

  /** Removes passkeys; the service refuses to remove the last way to sign in (409 LAST_AUTH_METHOD). */
  async deleteAuthenticators(params: {
    orgId: string;
    userId: string;
    authenticatorIds: string[];
  }): Promise<{ authenticatorIds: string[] }> {
    const activity = await this.submit("delete_authenticators", {
      type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
      organizationId: params.orgId,
      parameters: { userId: params.userId, authenticatorIds: params.authenticatorIds },
    });
    return (activity.result as { deleteAuthenticatorsResult: { authenticatorIds: string[] } })
      .deleteAuthenticatorsResult;
  }

  /** The user's passkeys with their credential ids (to exclude them when adding another). */
  getAuthenticators(params: { orgId: string; userId: string }): Promise<{ authenticators: Authenticator[] }> {
    return this.query("get_authenticators", { organizationId: params.orgId, userId: params.userId });
  }

  /**
   * A stamped read-only query, e.g. `query("list_wallets", { organizationId })`. The body names the query
   * (`type`), so the stamp cannot be presented for anything else.
   */
  async query<T = Record<string, unknown>>(
    name: QueryName,
    body: { organizationId: string; [key: string]: unknown },
    options: { stamper?: Stamper } = {},
  ): Promise<T> {
    const text = JSON.stringify({ type: queryTypes[name], ...body });
    const stamp = await (options.stamper ?? ((t: string) => this.keyHolder.stamp(t)))(text);
    return this.#post(`/public/v1/query/${name}`, text, { [stamp.stampHeaderName]: stamp.stampHeaderValue });
  }

  /**
   * A stamped submit; polls `get_activity` every 500 ms until COMPLETED. FAILED, REJECTED and
   * CONSENSUS_NEEDED throw an ActivityError (spec §4). With a `stamper` (a passkey) there is no polling:
   * every poll would be another prompt, so an activity that is not done at once is an error.
   */
  async submit(
    name: string,
    params: { type: string; organizationId: string; parameters: object },
    options: { stamper?: Stamper } = {},
  ): Promise<Activity> {
    const text = JSON.stringify(this.#submitBody(params.type, params.organizationId, params.parameters));
    const stamp = await (options.stamper ?? ((t: string) => this.keyHolder.stamp(t)))(text);
    let { activity } = await this.#post<{ activity: Activity }>(`/public/v1/submit/${name}`, text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    for (;;) {
      if (activity.status === "ACTIVITY_STATUS_COMPLETED") return activity;
      if (TERMINAL_FAILURES.has(activity.status) || options.stamper) throw new ActivityError(activity);
      await this.#sleep(this.#pollIntervalMs);
      ({ activity } = await this.query<{ activity: Activity }>("get_activity", {
        organizationId: params.organizationId,
        activityId: activity.id,
      }));
    }
  }

  /**
   * Polls `get_activity` every 500 ms while the activity is CREATED, PENDING or CONSENSUS_NEEDED (held
   * for an app admin), and answers it COMPLETED; FAILED and REJECTED throw an ActivityError, and so does
   * still waiting after `timeoutMs` (status CONSENSUS_NEEDED). An aborted `signal` throws its reason.
   */
  async waitForActivity(params: {
    organizationId: string;
    activityId: string;
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
  }): Promise<Activity> {
    const deadline =
      params.timeoutMs !== undefined ? this.#now() + params.timeoutMs : Number.POSITIVE_INFINITY;
    for (;;) {
      params.signal?.throwIfAborted();
      const { activity } = await this.query<{ activity: Activity }>("get_activity", {
        organizationId: params.organizationId,
        activityId: params.activityId,
      });
      if (activity.status === "ACTIVITY_STATUS_COMPLETED") return activity;
      if (activity.status === "ACTIVITY_STATUS_FAILED" || activity.status === "ACTIVITY_STATUS_REJECTED")
        throw new ActivityError(activity);
      if (this.#now() >= deadline) {
        throw new ActivityError(activity, {
          message: `Activity ${activity.id} is still waiting after ${params.timeoutMs} ms (${activity.status})`,
        });
      }
      await this.#sleep(this.#pollIntervalMs);
    }
  }
}
