import {
  type BackendEndpointName,
  type BackendRequest,
  type BackendResponse,
  backendApi,
} from "@latchkey/protocol/schemas";
import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../../context";
import { parseOrThrow } from "../../http/parse";
import { authenticateServer } from "./authenticateServer";
import type { AppServerKey } from "./serverKeys";

/** What a backend API handler is given: the server key that stamped, the parsed body and the raw one. */
export interface BackendInput<N extends BackendEndpointName> {
  serverKey: AppServerKey;
  body: BackendRequest<N>;
  /** The exact body signed: the fingerprint of the activity it makes. */
  raw: string;
  ip: string;
}

/** One backend API endpoint: its entry in the protocol's table and what it does. */
export interface BackendHandler<N extends BackendEndpointName> {
  name: N;
  run(ctx: ServiceContext, input: BackendInput<N>): Promise<BackendResponse<N>>;
}

export function defineBackendHandler<N extends BackendEndpointName>(
  handler: BackendHandler<N>,
): BackendHandler<N> {
  return handler;
}

/**
 * Registers `POST /backend/v1/…` for `handler`: the stamp is checked first (authenticateServer.ts), then
 * the body against the endpoint's schema (400 INVALID_REQUEST naming the first bad field; unknown keys
 * are refused).
 */
export function backendRoute<N extends BackendEndpointName>(
  app: FastifyInstance,
  ctx: ServiceContext,
  handler: BackendHandler<N>,
): void {
  const endpoint = backendApi[handler.name];
  app.post(endpoint.path, async (req) => {
    const { serverKey, body, raw } = await authenticateServer(ctx, req, endpoint.type);
    const parsed = parseOrThrow(endpoint.request, body, "request") as BackendRequest<N>;
    return handler.run(ctx, { serverKey, body: parsed, raw, ip: req.ip });
  });
}
