import type { ConfiguredChain, ServiceContext } from "../../context";
import type { PaymasterParams } from "./parseParams";
import { resolveSender } from "./resolveSender";
import { userOperationSpend, utcDay } from "./spending";

/**
 * Whose operation this is, for both paymaster methods: the user the sender belongs to (proven by the
 * factory), the spending owner and day, and the operation's reservation (by chain, sender and nonce).
 */
export async function sponsoredOperation(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { appId: string; policyId: string; chain: ConfiguredChain; paymaster: PaymasterParams },
) {
  const { appId, policyId, chain } = params;
  const op = params.paymaster.userOperation;
  const { userId } = await resolveSender(ctx, {
    chain,
    appId,
    sender: op.sender,
    factory: op.factory,
    factoryData: op.factoryData,
    accountSalt: params.paymaster.accountSalt,
  });
  const now = ctx.now();
  return {
    now,
    day: utcDay(now),
    owner: { appId, policyId, userId },
    record: userOperationSpend({ chainId: chain.chainId, sender: op.sender, nonce: op.nonce }),
  };
}
