import { QueryClient } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";

/**
 * The host's TanStack Query client, or a private one made here on first use, so that an app that only
 * shows the modal does not load TanStack Query.
 */
export function useLatchkeyQueryClient(): QueryClient {
  const { query } = useLatchkeyContext();
  query.client ??= new QueryClient();
  return query.client;
}
