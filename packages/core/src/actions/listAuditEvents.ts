import type { QueryResponse } from "@latchkey/protocol";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** One security event of the user: what happened, when, from where, and what the service noted. */
export type AuditEvent = QueryResponse<"list_audit_events">["events"][number];
/** What `listAuditEvents` takes. */
export interface ListAuditEventsParameters {
  /** At most this many events, newest first (1–100; 100 by default). */
  limit?: number;
}
/** What `listAuditEvents` resolves with. */
export type ListAuditEventsReturnType = AuditEvent[];
/** The errors `listAuditEvents` may throw (discriminate on `name` and `code`). */
export type ListAuditEventsErrorType = SignerError<"NOT_AUTHENTICATED"> | SignerApiError;

/**
 * The signed-in user's own security events from the service's audit log, newest first: sign-ins,
 * passkeys and social providers added or removed, email changes, authenticator-app changes, wallet
 * exports. What an account's "recent security activity" page shows.
 *
 * @example
 * const events = await listAuditEvents(signer, { limit: 20 });
 * for (const e of events) console.log(e.event, new Date(Number(e.createdAt.seconds) * 1000));
 */
export async function listAuditEvents(
  signer: SignerBase,
  { limit }: ListAuditEventsParameters = {},
): Promise<ListAuditEventsReturnType> {
  const user = await requireUser(signer);
  const { events } = await signer.client.query<QueryResponse<"list_audit_events">>("list_audit_events", {
    organizationId: user.orgId,
    userId: user.userId,
    ...(limit === undefined ? {} : { limit }),
  });
  return events;
}
