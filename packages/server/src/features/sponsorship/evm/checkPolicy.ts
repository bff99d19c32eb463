import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import { getAddress } from "viem";
import type { App } from "../../../apps/appDirectory";
import type { ConfiguredChain, ServiceContext } from "../../../context";
import { expandCalls } from "../../../keyManagement/policies/callsOf";
import { rpcError } from "../jsonRpc";
import type { PolicyDailyLimits } from "../spending";
import type { SponsorshipPolicy } from "./config";
import { decodeCalls } from "./decodeCalls";
import type { PaymasterParams, UserOperationParams } from "./parseParams";

export interface SponsoringChain extends ConfiguredChain {
  paymaster: `0x${string}`;
}

/**
 * The policy the client named, on a chain the service sponsors on with the EntryPoint the request is for.
 * Unknown policy, another chain or another EntryPoint: invalid params. A chain without a paymaster
 * (or not configured any more): unavailable.
 */
export function policyAndChain(
  ctx: Pick<ServiceContext, "chains">,
  app: App,
  params: PaymasterParams,
): { policy: SponsorshipPolicy; chain: SponsoringChain } {
  const policy = app.sponsorship.policies.find((p) => p.id === params.policyId);
  if (!policy)
    throw rpcError(
      RpcErrorCode.INVALID_PARAMS,
      SponsorshipErrorCode.POLICY_NOT_FOUND,
      `This app has no sponsorship policy ${JSON.stringify(params.policyId)}`,
    );
  if (params.chainId !== policy.chainId)
    throw rpcError(
      RpcErrorCode.INVALID_PARAMS,
      SponsorshipErrorCode.WRONG_CHAIN,
      `Policy ${policy.id} sponsors on chain ${policy.chainId}, not ${params.chainId}`,
    );
  const chain = ctx.chains.get(policy.chainId);
  if (!chain?.paymaster)
    throw rpcError(
      RpcErrorCode.RESOURCE_UNAVAILABLE,
      SponsorshipErrorCode.SPONSORSHIP_UNAVAILABLE,
      `Sponsorship on chain ${policy.chainId} is not set up on this service`,
    );
  if (params.entryPoint !== chain.entryPoint)
    throw rpcError(
      RpcErrorCode.INVALID_PARAMS,
      SponsorshipErrorCode.UNSUPPORTED_ENTRY_POINT,
      `Only user operations of EntryPoint ${chain.entryPoint} (v0.8) are sponsored on chain ${chain.chainId}`,
    );
  return { policy, chain: chain as SponsoringChain };
}

/**
 * Every call of the operation against the policy's allow-list (when it has one): its target, and its
 * selector when the target lists selectors. The calls are those the signing policies read (callsOf.ts):
 * an inner call to the operation's `sender` is read as the calls it runs (`execute`/`executeBatch`,
 * nested up to MAX_CALL_DEPTH), and an `execute`/`executeBatch` call to another address (the user's EOA
 * included) must be allowed and so must the calls it runs. Call data that is not `execute`/
 * `executeBatch`, at the top or in a call to the sender, is refused then, since what it does cannot be
 * told.
 */
export function checkCalls(
  policy: SponsorshipPolicy,
  op: { sender: `0x${string}`; callData: `0x${string}` },
): void {
  const allowed = policy.allowedTargets;
  if (!allowed) return;
  const sender = op.sender.toLowerCase() as `0x${string}`;
  const read = decodeCalls(op.callData)
    ? expandCalls([{ to: sender, data: op.callData, value: 0n }], new Set([sender]))
    : null;
  if (!read || read.unreadable)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.CALL_DATA_NOT_ALLOWED,
      `Policy ${policy.id} sponsors only SimpleAccount execute and executeBatch calls to its allowed targets`,
    );
  for (const [index, { to, data }] of read.calls.entries()) {
    const call = {
      target: to === null ? null : getAddress(to),
      selector: data.length >= 10 ? (data.slice(0, 10).toLowerCase() as `0x${string}`) : null,
    };
    const target = allowed.find((t) => t.address === call.target);
    if (!target)
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.TARGET_NOT_ALLOWED,
        `Policy ${policy.id} does not sponsor calls to ${call.target}`,
        { target: call.target, call: index },
      );
    if (target.selectors && !(call.selector && target.selectors.includes(call.selector)))
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.SELECTOR_NOT_ALLOWED,
        call.selector
          ? `Policy ${policy.id} does not sponsor function ${call.selector} of ${call.target}`
          : `Policy ${policy.id} sponsors only function calls to ${call.target}, not plain transfers`,
        { target: call.target, selector: call.selector, call: index },
      );
  }
}

export interface PaymasterGas {
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
}

/** All the gas the operation may use, the paymaster's included, and what it may cost at most. */
export function operationCost(op: UserOperationParams, gas: PaymasterGas): { gas: bigint; wei: bigint } {
  const total =
    op.callGasLimit +
    op.verificationGasLimit +
    op.preVerificationGas +
    gas.paymasterVerificationGasLimit +
    gas.paymasterPostOpGasLimit;
  return { gas: total, wei: total * op.maxFeePerGas };
}

/** The policy's per-operation limits: refused by policy (retrying the same operation cannot help). */
export function checkOperationLimits(policy: SponsorshipPolicy, cost: { gas: bigint; wei: bigint }): void {
  const { gasPerOperation, weiPerOperation } = policy.limits;
  if (gasPerOperation !== undefined && cost.gas > BigInt(gasPerOperation))
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.OPERATION_LIMIT_EXCEEDED,
      `The operation's gas (${cost.gas}) is above policy ${policy.id}'s limit of ${gasPerOperation}`,
      { limit: "gasPerOperation", max: String(gasPerOperation), requested: cost.gas.toString() },
    );
  if (weiPerOperation !== undefined && cost.wei > BigInt(weiPerOperation))
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.OPERATION_LIMIT_EXCEEDED,
      `The operation may cost ${cost.wei} wei, above policy ${policy.id}'s limit of ${weiPerOperation}`,
      { limit: "weiPerOperation", max: weiPerOperation, requested: cost.wei.toString() },
    );
}

/** The policy's daily limits: operations and wei, per user and per app. */
export function dailyLimitsOf(policy: SponsorshipPolicy): PolicyDailyLimits {
  const { limits } = policy;
  return {
    policyId: policy.id,
    limits: [
      {
        limit: "operationsPerUserPerDay",
        scope: "user",
        measure: "count",
        max: limits.operationsPerUserPerDay,
        unit: "operations",
      },
      {
        limit: "weiPerUserPerDay",
        scope: "user",
        measure: "amount",
        max: limits.weiPerUserPerDay,
        unit: "wei",
      },
      {
        limit: "operationsPerAppPerDay",
        scope: "app",
        measure: "count",
        max: limits.operationsPerAppPerDay,
        unit: "operations",
      },
      { limit: "weiPerAppPerDay", scope: "app", measure: "amount", max: limits.weiPerAppPerDay, unit: "wei" },
    ],
  };
}
