import type { SignerError } from "../errors";
import type { SmartAccountError } from "../errors/smartAccount";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import { chainConfigFor } from "../smartAccounts/chainConfig";
import type { LatchkeySmartAccountClient } from "../types/smartAccounts";

/** What `getSmartAccountClient` takes: a configured chain's id (the first configured chain by default). */
export interface GetSmartAccountClientParameters {
  chainId?: number;
}
/** The user's smart account on that chain behind a viem bundler client. */
export type GetSmartAccountClientReturnType = LatchkeySmartAccountClient;
/** The errors `getSmartAccountClient` may throw. */
export type GetSmartAccountClientErrorType =
  | SignerError<"NOT_AUTHENTICATED">
  | SmartAccountError<"SMART_ACCOUNT_CLIENT_MISSING" | "CHAIN_NOT_CONFIGURED">;

/**
 * The signed-in user's smart account on a configured chain, as a viem bundler client: a 7702 account (the
 * embedded wallet's own address, delegated to Simple7702Account by its first operation; the default) or a
 * SimpleAccount (ERC-4337 v0.8) it owns, by the kind the service records for the user
 * (`client.smartAccountKind`; `smartAccount.kind` in the options is the app's default for new users).
 * `client.account.address` is known before the first operation. Made once per user and chain; the
 * smart-account code loads on first use.
 *
 * @example
 * const client = await getSmartAccountClient(signer);
 * console.log(client.account.address);
 * const hash = await client.sendUserOperation({ calls: [{ to, data }] });
 */
export async function getSmartAccountClient(
  signer: SignerBase,
  { chainId }: GetSmartAccountClientParameters = {},
): Promise<GetSmartAccountClientReturnType> {
  const user = await requireUser(signer);
  const config = chainConfigFor(signer, chainId);
  const key = `${config.chain.id}:${user.address.toLowerCase()}`;
  const clients = signer._internal.smartAccountClients;
  let client = clients.get(key);
  if (!client) {
    client = import("../smartAccounts/client").then((m) => m.createSmartAccountClient(signer, config));
    clients.set(key, client);
    client.catch(() => clients.delete(key));
  }
  return client;
}
