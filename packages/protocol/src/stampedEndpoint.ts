import { z } from "zod";

/**
 * The builder of a stamped API's endpoint table (the admin API, `ADMIN_*` under `/admin/v1`; the backend
 * API, `BACKEND_*` under `/backend/v1`): each endpoint's request is `envelope` (who asks, then
 * `timestampMs`) with the endpoint's `type` and its own fields, strict. Internal to protocol.
 *
 * @example
 * const endpoint = stampedEndpoint("ADMIN", "/admin/v1", { organizationId: z.string() });
 * const get_user = endpoint("get_user", "/users/get", "One user.", { userId: id }, userSchema);
 */
export function stampedEndpoint<P extends string, E extends z.ZodRawShape>(
  prefix: P,
  basePath: string,
  envelopeShape: E,
) {
  const envelope = z.object({
    ...envelopeShape,
    timestampMs: z.string().regex(/^\d{1,16}$/, "timestampMs is a decimal string of milliseconds"),
  });
  return function endpoint<N extends string, Q extends z.ZodRawShape, R extends z.ZodType>(
    name: N,
    path: string,
    summary: string,
    params: Q,
    response: R,
  ) {
    const type = `${prefix}_${name.toUpperCase()}` as `${P}_${Uppercase<N>}`;
    return {
      name,
      path: `${basePath}${path}`,
      type,
      summary,
      request: envelope.extend({ type: z.literal(type), ...params }).strict(),
      response,
    } as const;
  };
}
