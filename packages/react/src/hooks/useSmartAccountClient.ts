import type { LatchkeySmartAccountClient } from "@latchkey/core";
import { useQuery } from "@tanstack/react-query";
import type { Address } from "viem";
import { useLatchkeyContext } from "../context";
import { smartAccountClientQueryOptions } from "../query/smartAccount";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";
import { useUser } from "./useUser";

/** What `useSmartAccountClient` answers. */
export interface UseSmartAccountClientResult {
  /** A viem bundler client whose `account` is the user's smart account; undefined until loaded or signed out. */
  client: LatchkeySmartAccountClient | undefined;
  /** The smart account's address (known before its first operation deploys it). */
  address: Address | undefined;
  isLoadingClient: boolean;
  error: Error | null;
}

/**
 * The signed-in user's smart account on a configured chain (the provider's `config.chains`; the first
 * one by default). Loads the smart-account code on first use; nothing while signed out.
 *
 * @example
 * const { client, address } = useSmartAccountClient();
 * return address ? <code>{address}</code> : null;
 */
export function useSmartAccountClient({ chainId }: { chainId?: number } = {}): UseSmartAccountClientResult {
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const q = useQuery(
    { ...smartAccountClientQueryOptions(signer, user?.address, chainId), enabled: Boolean(user) },
    useLatchkeyQueryClient(),
  );
  const client = user ? q.data : undefined;
  return {
    client,
    address: client?.account.address,
    isLoadingClient: Boolean(user) && q.isPending,
    error: q.error,
  };
}
