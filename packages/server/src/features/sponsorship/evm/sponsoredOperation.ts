import type { ConfiguredChain, ServiceContext } from "../../../context";
import { assertChargeable, type RpcCaller } from "../rpcCaller";
import { type PolicyDailyLimits, userOperationSpend, utcDay } from "../spending";
import type { PaymasterParams } from "./parseParams";
import { resolveSender } from "./resolveSender";

/**
 * Whose operation this is, for both paymaster methods: the user the sender belongs to (proven by the
 * factory, or the sender is their EOA delegated to an allowed implementation), who must be the request's stamped user (or, unstamped, the policy must have no per-user
 * limits: rpcCaller.ts); the spending owner and day, and the operation's reservation (by chain, sender
 * and nonce).
 */
export async function sponsoredOperation(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: {
    appId: string;
    daily: PolicyDailyLimits;
    caller: RpcCaller | undefined;
    chain: ConfiguredChain;
    paymaster: PaymasterParams;
    /** The policy's EIP-7702 delegates (`allowedImplementations`). */
    implementations: readonly `0x${string}`[];
  },
) {
  const { appId, chain } = params;
  const { policyId } = params.daily;
  const op = params.paymaster.userOperation;
  const { userId } = await resolveSender(ctx, {
    chain,
    appId,
    sender: op.sender,
    factory: op.factory,
    factoryData: op.factoryData,
    accountSalt: params.paymaster.accountSalt,
    eip7702Auth: op.eip7702Auth,
    implementations: params.implementations,
  });
  assertChargeable(params.daily, params.caller, userId);
  const now = ctx.now();
  return {
    now,
    day: utcDay(now),
    owner: { appId, policyId, userId },
    record: userOperationSpend({ chainId: chain.chainId, sender: op.sender, nonce: op.nonce }),
  };
}
