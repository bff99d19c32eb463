import { toHex } from "viem";
import type { App } from "../../../apps/appDirectory";
import type { ServiceContext } from "../../../context";
import type { RpcCaller } from "../rpcCaller";
import { checkDailyLimits, readUsage } from "../spending";
import { checkCalls, dailyLimitsOf, policyAndChain } from "./checkPolicy";
import { parsePaymasterParams } from "./parseParams";
import {
  PAYMASTER_POST_OP_GAS_LIMIT,
  PAYMASTER_VERIFICATION_GAS_LIMIT,
  stubPaymasterData,
} from "./paymasterData";
import { sponsoredOperation } from "./sponsoredOperation";

/**
 * `pm_getPaymasterStubData` (ERC-7677): paymaster fields for gas estimation. Checks what can be checked
 * before the gas is known — the policy, the sender, the calls, who asks (the same proof as the signing
 * call: rpcCaller.ts, so that nobody reads another user's daily counts), the daily counts — and records
 * nothing.
 */
export async function getPaymasterStubData(
  ctx: Pick<ServiceContext, "chains" | "db" | "now">,
  params: { app: App; caller: RpcCaller | undefined; rpcParams: unknown },
) {
  const { app } = params;
  const p = parsePaymasterParams(params.rpcParams, { complete: false });
  const { policy, chain } = policyAndChain(ctx, app, p);
  const op = p.userOperation;
  checkCalls(policy, op);
  const daily = dailyLimitsOf(policy);
  const { now, day, owner, record } = await sponsoredOperation(ctx, {
    appId: app.id,
    daily,
    caller: params.caller,
    chain,
    paymaster: p,
    implementations: policy.allowedImplementations,
  });
  const retried = (await record.previous(ctx.db, owner, day)) !== undefined;
  // Its cost is not known yet: a spend limit refuses here only when it has no room left at all.
  checkDailyLimits(daily, await readUsage(ctx.db, owner, day), { count: retried ? 0 : 1, amount: 1n }, now);
  return {
    paymaster: chain.paymaster,
    paymasterData: stubPaymasterData(),
    paymasterVerificationGasLimit: toHex(PAYMASTER_VERIFICATION_GAS_LIMIT),
    paymasterPostOpGasLimit: toHex(PAYMASTER_POST_OP_GAS_LIMIT),
    sponsor: { name: app.name },
    isFinal: false,
  };
}
