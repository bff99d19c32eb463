import {
  ACTIVITY_POLL_INTERVAL_MS,
  type Activity,
  type ActivityStatus,
  type QueryName,
  queryTypes,
  type Route,
  type RouteParameters,
  type RouteRequest,
  type RouteResponse,
  SDK_VERSION_HEADER,
  type StampedRequest,
  type StampedRoute,
  unreachableService,
} from "@latchkey/protocol/wire";
import { ActivityError, SignerApiError } from "../errors";
import type { KeyHolder, KeyHolderStamp } from "../keyHolders/types";
import { SDK_VERSION } from "../version";
import type { Stamper } from "./types";

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

/** The fields a stamped route's body carries beside its `stampedRequest` (the reference shape). */
type OuterFields<R> = Omit<RouteRequest<R>, "stampedRequest">;

/**
 * One stamped signer-API call: the organisation the signed body addresses, the parameters it signs
 * (submit and operation routes), the fields sent beside it, and who stamps (the session key by default,
 * or e.g. a passkey).
 */
export type StampedCall<R> = { organizationId: string; stamper?: Stamper | undefined } & ([
  RouteParameters<R>,
] extends [never]
  ? { parameters?: undefined }
  : { parameters: RouteParameters<R> }) &
  (Record<string, never> extends OuterFields<R> ? { outer?: OuterFields<R> } : { outer: OuterFields<R> });

/** A JSON-RPC 2.0 answer of the service's `/rpc/v1`: a result, or an error with its reason in `data.code`. */
export interface JsonRpcAnswer {
  result?: unknown;
  error?: { code?: number; message?: string; data?: { code?: unknown } };
}

const TERMINAL_FAILURES = new Set<ActivityStatus>([
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
]);

/**
 * Typed HTTP client of the signer API (`/signer/v1/*`, DESIGN §3.1) and of the stamped key-management
 * API (`/public/v1/*`, §3.3): transport, stamping and activity polling. Each call is typed from the
 * protocol's route table, the one the service registers its routes from; requests that act for the user
 * are stamped by the key holder, which never hands its keys out.
 *
 * @example
 * const client = new SignerClient({ baseUrl, apiKey, keyHolder: createMemoryKeyHolder() });
 * const { orgId } = await client.call(signerRoutes.lookup, { email: "ada@example.com" });
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
    const url = `${this.baseUrl}${path}`;
    const response = await doFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [SDK_VERSION_HEADER]: SDK_VERSION,
        ...(this.#auth ? { authorization: this.#auth } : {}),
        ...headers,
      },
      body,
    }).catch((error: unknown) => {
      throw unreachableService(url, error);
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
   * One stamped signer-API call: the signed body's `type`, the `url` it is bound to and its `timestampMs`
   * come from the route's binding (`route.stamped`), so a stamp made for one operation is refused by
   * every other. A signature the app's signing policy refuses or holds for an admin throws an
   * ActivityError (REJECTED or CONSENSUS_NEEDED) naming the activity, as any other activity does.
   *
   * @example
   * const { signature } = await client.callStamped(signerRoutes.signPayload, {
   *   organizationId: user.orgId,
   *   parameters: { signWith, payload, encoding, hashFunction },
   * });
   */
  async callStamped<R extends StampedRoute>(route: R, call: StampedCall<R>): Promise<RouteResponse<R>> {
    const { url, type, kind } = route.stamped;
    const { organizationId, stamper } = call;
    // A read needs no time unless a passkey signs it (every passkey-stamped body is fresh, single use).
    const body =
      kind === "query"
        ? { type, organizationId, ...(stamper ? { timestampMs: this.#timestampMs() } : {}) }
        : { type, timestampMs: this.#timestampMs(), organizationId, parameters: call.parameters };
    const stampedRequest = await this.stampRequest(url, body, stamper);
    try {
      return await this.call(route, { ...call.outer, stampedRequest } as RouteRequest<R>);
    } catch (e) {
      // The app requires the user to confirm this signature in the auth frame: the same body again,
      // stamped by the frame once the user confirmed it there.
      const confirmStamp = this.#confirmStamperFor(e, stamper);
      if (confirmStamp) {
        try {
          const confirmed = await this.stampRequest(url, body, confirmStamp);
          return await this.call(route, { ...call.outer, stampedRequest: confirmed } as RouteRequest<R>);
        } catch (again) {
          throw kind === "submit" ? activityErrorOf(again) : again;
        }
      }
      throw kind === "submit" ? activityErrorOf(e) : e;
    }
  }

  /**
   * The language the auth frame's confirmation step is drawn in (en, de, fr or es): the modal sets it to
   * its own.
   */
  confirmationLocale: string | undefined;

  /**
   * Enforced confirmations (issue 46): for a request the service refused with CONFIRMATION_REQUIRED,
   * stamped by the session key, the key holder's frame confirmation; else undefined (the error stands).
   */
  #confirmStamperFor(e: unknown, stamper: Stamper | undefined): Stamper | undefined {
    const confirmStamp = this.keyHolder.confirmStamp?.bind(this.keyHolder);
    if (stamper || !confirmStamp) return undefined;
    if (!(e instanceof SignerApiError) || e.code !== "CONFIRMATION_REQUIRED") return undefined;
    const locale = this.confirmationLocale;
    return (text) => confirmStamp(text, locale ? { locale } : {});
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

  /**
   * One call to the service's JSON-RPC endpoint (`POST /rpc/v1`, authenticated by the app's key like the
   * signer API, and stamped by the session key so that the service charges the user's sponsorship limits
   * to this user only): the answer's `result` or `error` as sent, for the caller to interpret (e.g. the
   * Solana fee payer, `latchkey_requestFeePayer`, whose refusals name their reason in `error.data.code`).
   * One call a request, so its id only has to match its answer.
   */
  async jsonRpc(method: string, params: unknown): Promise<JsonRpcAnswer> {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    return this.#post<JsonRpcAnswer>("/rpc/v1", body, stampHeaders(await this.keyHolder.stamp(body)));
  }

  // ---- stamping ----

  /**
   * A key-management request to be carried in a signer call, signed by the session key (or by `stamper`,
   * e.g. a passkey). Prefer `callStamped`, which builds the body from the route's binding.
   */
  async stampRequest(
    path: `/public/v1/${string}`,
    body: object,
    stamper: Stamper = (text) => this.keyHolder.stamp(text),
  ): Promise<StampedRequest> {
    const text = JSON.stringify(body);
    const { stampHeaderName, stampHeaderValue, userShare, confirmation } = (await stamper(
      text,
    )) as KeyHolderStamp;
    return {
      body: text,
      stamp: { stampHeaderName, stampHeaderValue },
      url: `${this.baseUrl}${path}`,
      ...(userShare ? { userShare } : {}),
      ...(confirmation ? { confirmation } : {}),
    };
  }

  // Fresh bodies are single use and stamps are deterministic: two bodies in the same millisecond would
  // be one request to the service, so the timestamp strictly increases per client.
  #lastTimestampMs = 0;
  #timestampMs(): string {
    this.#lastTimestampMs = Math.max(this.#now(), this.#lastTimestampMs + 1);
    return String(this.#lastTimestampMs);
  }

  // ---- key-management API (DESIGN §3.3) ----

  /**
   * A stamped read-only query, e.g. `query("list_wallets", { organizationId })`. The body names the query
   * (`type`), so the stamp cannot be presented for anything else.
   */
  async query<T = Record<string, unknown>>(
    name: QueryName,
    body: { organizationId: string; [key: string]: unknown },
    options: { stamper?: Stamper | undefined } = {},
  ): Promise<T> {
    const text = JSON.stringify({ type: queryTypes[name], ...body });
    const stamp = await (options.stamper ?? ((t: string) => this.keyHolder.stamp(t)))(text);
    return this.#post(`/public/v1/query/${name}`, text, stampHeaders(stamp));
  }

  /**
   * A stamped submit; polls `get_activity` every 500 ms until COMPLETED. FAILED, REJECTED and
   * CONSENSUS_NEEDED throw an ActivityError (spec §4). With a `stamper` (a passkey) there is no polling:
   * every poll would be another prompt, so an activity that is not done at once is an error.
   */
  async submit(
    name: string,
    params: { type: string; organizationId: string; parameters: object },
    options: { stamper?: Stamper | undefined } = {},
  ): Promise<Activity> {
    const { type, organizationId, parameters } = params;
    const text = JSON.stringify({ type, timestampMs: this.#timestampMs(), organizationId, parameters });
    const stamp = await (options.stamper ?? ((t: string) => this.keyHolder.stamp(t)))(text);
    let activity: Activity;
    try {
      ({ activity } = await this.#post<{ activity: Activity }>(
        `/public/v1/submit/${name}`,
        text,
        stampHeaders(stamp),
      ));
    } catch (e) {
      // The app requires the user to confirm this signature in the auth frame (as in callStamped).
      const confirmStamp = this.#confirmStamperFor(e, options.stamper);
      if (!confirmStamp) throw e;
      ({ activity } = await this.#post<{ activity: Activity }>(
        `/public/v1/submit/${name}`,
        text,
        stampHeaders(await confirmStamp(text)),
      ));
    }
    for (;;) {
      if (activity.status === "ACTIVITY_STATUS_COMPLETED") return activity;
      if (TERMINAL_FAILURES.has(activity.status) || options.stamper) throw new ActivityError(activity);
      await this.#sleep(this.#pollIntervalMs);
      ({ activity } = await this.query<{ activity: Activity }>("get_activity", {
        organizationId,
        activityId: activity.id,
      }));
    }
  }

  /**
   * Polls `get_activity` every 500 ms while the activity is CREATED, PENDING or CONSENSUS_NEEDED (held
   * for an app admin), and answers it COMPLETED; FAILED and REJECTED throw an ActivityError, and so does
   * still waiting after `timeoutMs` (status CONSENSUS_NEEDED). An aborted `signal` throws its reason.
   *
   * A split wallet's held signature that an admin approved (`activity.approval`) is completed here: the
   * key holder's share goes with `complete_activity` (docs/split-custody.md §7), once per approval, and
   * the held activity is answered COMPLETED with its signature. A completion the service refuses for the
   * share (USER_SHARE_REQUIRED, USER_SHARE_INVALID: this device does not hold it) throws; any other
   * refusal (another device completed it, the approval expired, a rule now denies it) is read by the
   * next poll.
   */
  async waitForActivity(params: {
    organizationId: string;
    activityId: string;
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
  }): Promise<Activity> {
    const deadline =
      params.timeoutMs !== undefined ? this.#now() + params.timeoutMs : Number.POSITIVE_INFINITY;
    let completedFor: string | undefined;
    for (;;) {
      params.signal?.throwIfAborted();
      const { activity } = await this.query<{ activity: Activity }>("get_activity", {
        organizationId: params.organizationId,
        activityId: params.activityId,
      });
      if (activity.status === "ACTIVITY_STATUS_COMPLETED") return activity;
      if (activity.status === "ACTIVITY_STATUS_FAILED" || activity.status === "ACTIVITY_STATUS_REJECTED")
        throw new ActivityError(activity);
      const approval = activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? activity.approval : undefined;
      const approvedAt = approval && `${approval.approvedAt.seconds}.${approval.approvedAt.nanos}`;
      if (approvedAt && approvedAt !== completedFor) {
        completedFor = approvedAt;
        if (await this.#completeApproved(params.organizationId, activity.id, signWithOf(activity))) continue;
      }
      if (this.#now() >= deadline) {
        throw new ActivityError(activity, {
          message: `Activity ${activity.id} is still waiting after ${params.timeoutMs} ms (${activity.status})`,
        });
      }
      await this.#sleep(this.#pollIntervalMs);
    }
  }

  /** `complete_activity` of an approved held signature: true once done (the next poll reads it). */
  async #completeApproved(
    organizationId: string,
    activityId: string,
    signWith: string | undefined,
  ): Promise<boolean> {
    try {
      await this.submit("complete_activity", {
        type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
        organizationId,
        // The key holder picks the share of the wallet that signs (a user may hold several).
        parameters: { activityId, ...(signWith ? { signWith } : {}) },
      });
      return true;
    } catch (e) {
      if (e instanceof SignerApiError && SHARE_REFUSALS.has(e.code)) throw e;
      // Completed elsewhere, expired, or now denied: the activity says which.
      if (e instanceof SignerApiError || e instanceof ActivityError) return false;
      throw e;
    }
  }
}

/** The account a held signing activity signs with, as its intent names it. */
function signWithOf(activity: Activity): string | undefined {
  for (const value of Object.values(activity.intent ?? {})) {
    const signWith = (value as { signWith?: unknown } | null)?.signWith;
    if (typeof signWith === "string") return signWith;
  }
  return undefined;
}

/** A completion refused because this device does not hold the wallet's share: waiting will not help. */
const SHARE_REFUSALS = new Set<string>(["USER_SHARE_REQUIRED", "USER_SHARE_INVALID"]);

/** The user share's header on the key-management API (`USER_SHARE_HEADER_NAME` of protocol/custody). */
const USER_SHARE_HEADER = "X-User-Share";
/** The auth frame's confirmation on the key-management API (`CONFIRMATION_HEADER_NAME` of protocol/frame). */
const CONFIRMATION_HEADER = "X-Confirmation";

/** `X-Stamp` (or `X-Stamp-WebAuthn`), and `X-User-Share` when the key holder attached a share. */
function stampHeaders(stamp: KeyHolderStamp): Record<string, string> {
  return {
    [stamp.stampHeaderName]: stamp.stampHeaderValue,
    ...(stamp.userShare ? { [USER_SHARE_HEADER]: stamp.userShare } : {}),
    ...(stamp.confirmation ? { [CONFIRMATION_HEADER]: stamp.confirmation } : {}),
  };
}

const POLICY_OUTCOMES = new Set<ActivityStatus>([
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
]);

/**
 * A stamped submit the service recorded but did not complete (the app's signing policy refused it or
 * holds it for an admin) answers its activity's id and status: the same ActivityError a key-management
 * submit throws. Any other error is left as it is.
 */
function activityErrorOf(e: unknown): unknown {
  if (!(e instanceof SignerApiError)) return e;
  const { activityId, activityStatus } = (e.data ?? {}) as { activityId?: unknown; activityStatus?: unknown };
  const status = activityStatus as ActivityStatus;
  if (typeof activityId !== "string" || !POLICY_OUTCOMES.has(status)) return e;
  return new ActivityError(
    { id: activityId, status, failure: { code: e.code, message: e.message } },
    { cause: e },
  );
}
