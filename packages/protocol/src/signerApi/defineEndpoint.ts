import type { z } from "zod";
import type { Route, RouteRequest } from "./routes";

/** A signer-API route with the schema the server validates its body with. */
export type Endpoint<R extends Route = Route, Request extends z.ZodType = z.ZodType> = R & {
  request: Request;
};

/**
 * Pairs a route with its request schema; the schema must accept exactly the body the route's type says.
 *
 * @example
 * const lookup = withSchema(signerRoutes.lookup, lookupRequestSchema);
 */
export function withSchema<R extends Route, Request extends z.ZodType<unknown, RouteRequest<R>>>(
  route: R,
  request: Request & (z.input<Request> extends RouteRequest<R> ? unknown : never),
): Endpoint<R, Request> {
  return { ...route, request };
}

export type EndpointRequest<E> = E extends Route<infer Q> ? Q : never;
export type EndpointResponse<E> = E extends Route<unknown, infer S> ? S : never;
