import {
  type AdminEndpointName,
  type AdminRequest,
  type AdminResponse,
  adminApi,
} from "@latchkey/protocol/schemas";
import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../../context";
import { parseOrThrow } from "../../http/parse";
import { authenticateAdmin } from "./authenticateAdmin";
import type { AdminStamper } from "./console/consoleSession";

/**
 * What an admin API handler is given: the app admin who stamped (an admin key, or a console session:
 * `admin.consoleSessionId`), and the body its schema parsed.
 */
export interface AdminInput<N extends AdminEndpointName> {
  admin: AdminStamper;
  body: AdminRequest<N>;
  ip: string;
}

/** One admin API endpoint: its entry in the protocol's table and what it does. */
export interface AdminHandler<N extends AdminEndpointName> {
  name: N;
  run(ctx: ServiceContext, input: AdminInput<N>): Promise<AdminResponse<N>>;
}

export function defineAdminHandler<N extends AdminEndpointName>(handler: AdminHandler<N>): AdminHandler<N> {
  return handler;
}

/**
 * Registers `POST /admin/v1/…` for `handler`: the stamp is checked first (authenticateAdmin.ts), then
 * the body against the endpoint's schema (400 INVALID_REQUEST naming the first bad field; unknown keys
 * are refused).
 */
export function adminRoute<N extends AdminEndpointName>(
  app: FastifyInstance,
  ctx: ServiceContext,
  handler: AdminHandler<N>,
): void {
  const endpoint = adminApi[handler.name];
  app.post(endpoint.path, async (req) => {
    const { admin, body } = await authenticateAdmin(ctx, req, endpoint.type);
    const parsed = parseOrThrow(endpoint.request, body, "request") as AdminRequest<N>;
    return handler.run(ctx, { admin, body: parsed, ip: req.ip });
  });
}
