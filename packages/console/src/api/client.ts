import {
  type AdminEndpointName,
  type AdminRequest,
  type AdminResponse,
  adminRoutes,
  adminType,
} from "@latchkey/protocol";
import type { AdminSession } from "./sessionKey";
import { stampWithSession } from "./sessionKey";

/** An answer of the service other than 2xx: its stable code, status and message. */
export class ConsoleError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ConsoleError";
  }
}

/** POSTs `body` (exact text) to `path` on this origin; the JSON answer, or a ConsoleError. */
export async function postJson<T>(
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      credentials: "omit",
    });
  } catch {
    throw new ConsoleError("NETWORK", 0, "The service could not be reached");
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ConsoleError("INVALID_JSON", res.status, `The service answered ${res.status}`);
  }
  if (!res.ok) {
    const e = json as { code?: string; error?: string; message?: string };
    throw new ConsoleError(e.code ?? "UNKNOWN", res.status, e.error ?? e.message ?? `Error ${res.status}`);
  }
  return json as T;
}

/** The parameters of an admin endpoint: its body without the envelope the client adds. */
export type AdminParams<N extends AdminEndpointName> = Omit<
  AdminRequest<N>,
  "type" | "organizationId" | "timestampMs"
>;

// Every body is single use (the service refuses a replay), and reads repeat: two calls with the same
// parameters in one millisecond must still differ, so timestamps only go up.
let lastTimestamp = 0;
function nextTimestamp(): string {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return String(lastTimestamp);
}

/**
 * Calls an admin API endpoint as the signed-in admin: the body names the endpoint's `type`, the app's
 * organisation and a fresh timestamp, and is stamped by the session key.
 */
export async function adminCall<N extends AdminEndpointName>(
  session: AdminSession,
  name: N,
  params: AdminParams<N>,
): Promise<AdminResponse<N>> {
  const body = JSON.stringify({
    type: adminType(name),
    organizationId: session.admin.organizationId,
    timestampMs: nextTimestamp(),
    ...params,
  });
  return postJson<AdminResponse<N>>(adminRoutes[name], body, await stampWithSession(session, body));
}
