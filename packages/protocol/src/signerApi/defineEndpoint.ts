import type { z } from "zod";

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

/** One signer-API endpoint: its path, its request schema, its response type and, if stamped, its binding. */
export interface Endpoint<Request extends z.ZodType = z.ZodType, Response = unknown> {
  path: `/v1/${string}`;
  request: Request;
  stamped?: StampedBinding;
  /** Type-level only: what the endpoint answers. */
  readonly _response?: Response;
}

/**
 * Declares an endpoint; the response type is given first, the rest is inferred.
 *
 * @example
 * export const lookup = defineEndpoint<LookupResponse>()({ path: "/v1/lookup", request: lookupRequestSchema });
 */
export function defineEndpoint<Response>() {
  return <Request extends z.ZodType>(e: {
    path: `/v1/${string}`;
    request: Request;
    stamped?: StampedBinding;
  }): Endpoint<Request, Response> => e;
}

export type EndpointRequest<E> = E extends Endpoint<infer R> ? z.input<R> : never;
export type EndpointResponse<E> = E extends Endpoint<z.ZodType, infer S> ? S : never;
