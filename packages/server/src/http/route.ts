import {
  type Activity,
  type Endpoint,
  type EndpointResponse,
  ErrorCode,
  type Route,
  type StampedBinding,
  type StampedRequest,
} from "@latchkey/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { App } from "../apps/appDirectory";
import type { StampedCaller } from "../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";
import type { ActivityContext } from "../keyManagement/defineActivity";
import { submitActivity } from "../keyManagement/submitActivity";
import { parseOrThrow } from "./parse";
import { appOf } from "./plugins/appApiKey";
import { unwrapStampedRequest } from "./stampedRequest";

/** What a signer-API handler is given: the body its schema parsed, the calling app and the client's IP. */
export interface RouteInput<E extends Endpoint> {
  body: z.output<E["request"]>;
  app: App;
  ip: string;
  req: FastifyRequest;
}

type Answer<E> = EndpointResponse<E> | Promise<EndpointResponse<E>>;

/**
 * Registers a signer-API endpoint (`POST /signer{path}`) from its entry in the protocol's table: the
 * body is validated by the entry's schema (400 naming the first bad field) before `handler` runs, and
 * the answer is typed by the entry. Where one body has several shapes, each served by its own feature,
 * use `routeShape`.
 *
 * @example
 * route(app, signerApi.lookup, async ({ body, app }) => ({ orgId: await orgOf(app, body.email) }));
 */
export function route<E extends Endpoint>(
  app: FastifyInstance,
  endpoint: E,
  handler: (input: RouteInput<E>) => Answer<E>,
): void {
  app.post(`/signer${endpoint.path}`, async (req) =>
    handler({ body: parseBody(endpoint, req.body ?? {}), app: appOf(req), ip: req.ip, req }),
  );
}

/** One shape of a body that has several: which bodies it takes, its schema, and its handler. */
interface Shape {
  is?: (body: object) => boolean;
  schema: z.ZodType;
  handler: (input: RouteInput<Endpoint>) => unknown;
}

/** The shapes registered so far, by app and path: the first `routeShape` of a path registers its route. */
const shapesOf = new WeakMap<FastifyInstance, Map<string, Shape[]>>();

/**
 * Serves one shape of an endpoint whose body has several, each from its own feature (sign-up by passkey
 * and by email share `/v1/signup`): the first shape whose `is` takes the body serves it, else the shape
 * without `is`; its own schema checks the body (400 naming the first bad field), and a body that is not
 * an object is a 400 INVALID_REQUEST.
 *
 * @example
 * const passkeyShape = { is: (b: object) => "passkey" in b, schema: passkeySignupRequestSchema };
 * routeShape(app, signerApi.signup, passkeyShape, ({ body, app, ip }) =>
 *   signupWithPasskey(ctx, { app, request: body, ip }),
 * );
 */
export function routeShape<E extends Endpoint, S extends z.ZodType<z.output<E["request"]>>>(
  app: FastifyInstance,
  endpoint: E,
  shape: { is?: (body: object) => boolean; schema: S },
  handler: (input: Omit<RouteInput<E>, "body"> & { body: z.output<S> }) => Answer<E>,
): void {
  const byPath = shapesOf.get(app) ?? new Map<string, Shape[]>();
  shapesOf.set(app, byPath);
  const shapes = byPath.get(endpoint.path);
  const added: Shape = { ...shape, handler: handler as Shape["handler"] };
  if (shapes) {
    shapes.push(added);
    return;
  }
  const registered = [added];
  byPath.set(endpoint.path, registered);
  app.post(`/signer${endpoint.path}`, async (req) => {
    const body: unknown = req.body ?? {};
    if (typeof body !== "object" || body === null)
      throw apiError(ErrorCode.INVALID_REQUEST, "Invalid request");
    const serving = registered.find((s) => s.is?.(body)) ?? registered.find((s) => !s.is);
    if (!serving) throw apiError(ErrorCode.INVALID_REQUEST, "Invalid request");
    const parsed = parseOrThrow(serving.schema, body, "request");
    return serving.handler({ body: parsed, app: appOf(req), ip: req.ip, req });
  });
}

/** The body as the endpoint's schema reads it: 400 naming the first bad field. */
function parseBody<E extends Endpoint>(endpoint: E, body: unknown): z.output<E["request"]> {
  return parseOrThrow<E["request"]>(endpoint.request, body, "request");
}

/** What a stamped handler is given besides the body: who stamped, and the exact body they signed. */
export interface StampedRouteInput<E extends Endpoint> extends RouteInput<E> {
  caller: StampedCaller;
  /** The signed body, as sent. */
  raw: string;
  /**
   * Runs the route's activity (a `submit` binding) once per signed body, and answers it completed: one
   * the app's signing policy refused or holds answers 403 POLICY_DENIED or 409 ACTIVITY_CONSENSUS_NEEDED
   * with `data.activityId` and `data.activityStatus`.
   */
  submit: () => Promise<Activity>;
}

/**
 * Registers a stamped signer-API endpoint: the body is validated, then its `stampedRequest` must be
 * bound to the entry's `stamped` binding (url, type, kind), verify, and belong to the calling app
 * (`unwrapStampedRequest`). A passkey may stamp it when `passkey` says so.
 *
 * @example
 * stampedRoute(app, ctx, signerApi.removeOauthProvider, async ({ submit }) => {
 *   await submit();
 *   return {};
 * });
 */
export function stampedRoute<
  E extends Endpoint<Route, z.ZodType<{ stampedRequest: StampedRequest }>> & { stamped: StampedBinding },
>(
  app: FastifyInstance,
  ctx: ServiceContext,
  endpoint: E,
  handler: (input: StampedRouteInput<E>) => Answer<E>,
  options: { passkey?: { allowRootOrg: boolean } } = {},
): void {
  app.post(`/signer${endpoint.path}`, async (req) => {
    const body = parseBody(endpoint, req.body ?? {});
    const app = appOf(req);
    const { stampedRequest } = body;
    const { caller, raw } = await unwrapStampedRequest(
      ctx,
      { stampedRequest, app },
      endpoint.stamped,
      options,
    );
    const submit = () =>
      completedActivity(ctx, endpoint.stamped, {
        raw,
        caller,
        userShare: stampedRequest.userShare,
        confirmation: stampedRequest.confirmation,
      });
    return handler({ body, app, ip: req.ip, req, caller, raw, submit });
  });
}

/** The signing policy's outcomes, as the signer API answers them. */
const NOT_COMPLETED = {
  ACTIVITY_STATUS_REJECTED: [ErrorCode.POLICY_DENIED, "Refused by the signing policy"],
  ACTIVITY_STATUS_CONSENSUS_NEEDED: [
    ErrorCode.ACTIVITY_CONSENSUS_NEEDED,
    "Held by the signing policy until an app admin approves it",
  ],
} as const;

async function completedActivity(
  ctx: ActivityContext,
  binding: StampedBinding,
  params: {
    raw: string;
    caller: StampedCaller;
    userShare?: string | undefined;
    confirmation?: string | undefined;
  },
): Promise<Activity> {
  const { activity } = await submitActivity(ctx, binding, {
    rawBody: params.raw,
    caller: params.caller,
    userShare: params.userShare,
    confirmation: params.confirmation,
  });
  if (activity.status === "ACTIVITY_STATUS_COMPLETED") return activity;
  const data = { activityId: activity.id, activityStatus: activity.status };
  const [code, message] =
    NOT_COMPLETED[activity.status as keyof typeof NOT_COMPLETED] ??
    ([ErrorCode.ACTIVITY_NOT_PENDING, `The activity is ${activity.status}`] as const);
  throw apiError(code, activity.failure?.message ?? message, { data });
}
