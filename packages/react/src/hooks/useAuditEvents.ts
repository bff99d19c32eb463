import type { AuditEvent } from "@latchkey/core";
import { useQuery } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { auditEventsQueryOptions } from "../query/authMethods";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";
import { useUser } from "./useUser";

/** What `useAuditEvents` answers. */
export interface UseAuditEventsResult {
  /** Newest first; undefined while loading or signed out. */
  events: AuditEvent[] | undefined;
  isLoading: boolean;
  error: Error | null;
  refetch: () => Promise<unknown>;
}

/**
 * The signed-in user's recent security events (sign-ins, sign-in methods added or removed, email
 * changes, wallet exports), fetched again after each change made through the management hooks.
 *
 * @example
 * const { events } = useAuditEvents({ limit: 10 });
 * return <ul>{events?.map((e) => <li key={e.eventId}>{e.event}</li>)}</ul>;
 */
export function useAuditEvents({ limit }: { limit?: number } = {}): UseAuditEventsResult {
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const q = useQuery(
    { ...auditEventsQueryOptions(signer, user?.userId, limit), enabled: Boolean(user) },
    useLatchkeyQueryClient(),
  );
  return {
    events: user ? q.data : undefined,
    isLoading: Boolean(user) && q.isPending,
    error: q.error,
    refetch: q.refetch,
  };
}
