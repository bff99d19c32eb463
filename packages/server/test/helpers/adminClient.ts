import { stampWithPrivateKey } from "@latchkey/protocol";
import { type AdminEndpointName, adminApi } from "@latchkey/protocol/schemas";
import { post } from "../helpers";

/** An answer of the admin API: its status and JSON body. */
export type AdminAnswer = Awaited<ReturnType<typeof post>>;

/**
 * A Node client of the admin API (`POST /admin/v1/*`) for tests: each call builds the body an admin
 * console would (`type`, `organizationId`, `timestampMs`, the parameters) and stamps it with the admin's
 * P-256 private key (`X-Stamp` over the exact bytes).
 */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    readonly organizationId: string,
    readonly privateKey: Uint8Array,
    readonly clock: () => number = Date.now,
  ) {}

  /** Calls `name` with `params`; `over` replaces envelope fields (to test refusals). */
  call(name: AdminEndpointName, params: Record<string, unknown> = {}, over: Record<string, unknown> = {}) {
    const endpoint = adminApi[name];
    const body = {
      type: endpoint.type,
      organizationId: this.organizationId,
      timestampMs: String(this.clock()),
      ...params,
      ...over,
    };
    return this.send(name, JSON.stringify(body));
  }

  /** Sends an exact body text to `name`'s path, stamped by this admin (or by `key`). */
  send(name: AdminEndpointName, text: string, key: Uint8Array = this.privateKey): Promise<AdminAnswer> {
    const stamp = stampWithPrivateKey(text, key);
    return post(this.baseUrl, adminApi[name].path, text, { [stamp.stampHeaderName]: stamp.stampHeaderValue });
  }

  /** Sends an exact body with an exact stamp header (a replay). */
  sendStamped(name: AdminEndpointName, text: string, stampHeaderValue: string): Promise<AdminAnswer> {
    return post(this.baseUrl, adminApi[name].path, text, { "X-Stamp": stampHeaderValue });
  }
}
