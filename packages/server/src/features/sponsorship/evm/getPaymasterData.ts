import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { App } from "../../../apps/appDirectory";
import type { ServiceContext } from "../../../context";
import { rpcError } from "../jsonRpc";
import type { RpcCaller } from "../rpcCaller";
import { addedUsage, checkDailyLimits, readUsage, reserveSpend } from "../spending";
import {
  checkCalls,
  checkOperationLimits,
  dailyLimitsOf,
  operationCost,
  policyAndChain,
} from "./checkPolicy";
import { parsePaymasterParams } from "./parseParams";
import {
  PAYMASTER_POST_OP_GAS_LIMIT,
  PAYMASTER_VERIFICATION_GAS_LIMIT,
  signedPaymasterData,
  VALID_FOR_SECONDS,
} from "./paymasterData";
import { onChain } from "./resolveSender";
import { sponsoredOperation } from "./sponsoredOperation";

/**
 * `pm_getPaymasterData` (ERC-7677): the signed paymaster fields. Every check of the stub (the sender's
 * owner charged only when the request proves it is them: rpcCaller.ts), then the
 * per-operation gas and cost limits; the signature is made, then the operation's maximum cost is reserved
 * against the daily limits in one transaction, and only then is the signature answered. A refusal signs
 * nothing that leaves the service and records nothing.
 */
export async function getPaymasterData(
  ctx: Pick<ServiceContext, "chains" | "audit" | "db" | "dbKind" | "now" | "serviceKeys">,
  params: { app: App; caller: RpcCaller | undefined; rpcParams: unknown },
) {
  const { app } = params;
  const p = parsePaymasterParams(params.rpcParams, { complete: true });
  const { policy, chain } = policyAndChain(ctx, app, p);
  const op = p.userOperation;
  checkCalls(policy, op);
  // The client's paymaster gas limits (from the stub, maybe re-estimated) are what the signature covers.
  const gas = {
    paymasterVerificationGasLimit: op.paymasterVerificationGasLimit ?? PAYMASTER_VERIFICATION_GAS_LIMIT,
    paymasterPostOpGasLimit: op.paymasterPostOpGasLimit ?? PAYMASTER_POST_OP_GAS_LIMIT,
  };
  const cost = operationCost(op, gas);
  checkOperationLimits(policy, cost);
  const daily = dailyLimitsOf(policy);
  const { now, day, owner, record } = await sponsoredOperation(ctx, {
    appId: app.id,
    daily,
    caller: params.caller,
    chain,
    paymaster: p,
    implementations: policy.allowedImplementations,
  });
  // A pre-check without locks, so that a refused operation costs no call to the chain.
  checkDailyLimits(
    daily,
    await readUsage(ctx.db, owner, day),
    addedUsage(await record.previous(ctx.db, owner, day), cost.wei),
    now,
  );
  const signed = await onChain(() =>
    signedPaymasterData(ctx, {
      chain,
      userOperation: op,
      ...gas,
      validUntil: Math.floor(now / 1000) + VALID_FOR_SECONDS,
    }),
  ).catch((e: unknown) => {
    if (e instanceof Error) throw e;
    throw rpcError(
      RpcErrorCode.RESOURCE_UNAVAILABLE,
      SponsorshipErrorCode.SPONSORSHIP_UNAVAILABLE,
      `The paymaster ${chain.paymaster} on chain ${chain.chainId} does not answer getHash`,
    );
  });
  await reserveSpend(ctx, { policy: daily, owner, record, amount: cost.wei });
  const answer: Record<string, unknown> = { ...signed };
  // Limits the client did not send are ours: it must send the operation with them, as signed.
  if (op.paymasterVerificationGasLimit === undefined)
    answer.paymasterVerificationGasLimit = `0x${gas.paymasterVerificationGasLimit.toString(16)}`;
  if (op.paymasterPostOpGasLimit === undefined)
    answer.paymasterPostOpGasLimit = `0x${gas.paymasterPostOpGasLimit.toString(16)}`;
  return answer;
}
