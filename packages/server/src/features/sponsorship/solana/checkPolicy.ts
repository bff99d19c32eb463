import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import type { Instruction } from "@solana/kit";
import type { App } from "../../../apps/appDirectory";
import { rpcError } from "../jsonRpc";
import type { PolicyDailyLimits } from "../spending";
import type { SolanaSponsorshipPolicy } from "./config";
import { COMPUTE_BUDGET_PROGRAM } from "./transactionCost";

/** The app's Solana policy the client named; an EVM policy's id, or none, is not found. */
export function solanaPolicyOf(app: App, policyId: string): SolanaSponsorshipPolicy {
  const policy = app.sponsorship.solanaPolicies.find((p) => p.id === policyId);
  if (!policy)
    throw rpcError(
      RpcErrorCode.INVALID_PARAMS,
      SponsorshipErrorCode.POLICY_NOT_FOUND,
      app.sponsorship.policies.some((p) => p.id === policyId)
        ? `Policy ${JSON.stringify(policyId)} sponsors EVM user operations, not Solana transactions`
        : `This app has no Solana sponsorship policy ${JSON.stringify(policyId)}`,
    );
  return policy;
}

/**
 * The fee payer pays the fee and nothing else: no instruction may name it, as an account (which a program
 * could debit, assign or close, the fee payer being a writable signer) or as the program. Programs reach
 * only the accounts their instruction lists, so this holds through cross-program calls too.
 */
export function checkFeePayerUnused(instructions: readonly Instruction[], feePayer: string): void {
  for (const [index, instruction] of instructions.entries()) {
    if (
      instruction.programAddress === feePayer ||
      (instruction.accounts ?? []).some((a) => a.address === feePayer)
    )
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.FEE_PAYER_MISUSE,
        `Instruction ${index} names the service's fee payer ${feePayer}: it would drain or misuse the fee payer`,
        { instruction: index, feePayer },
      );
  }
}

const hex = (data: Instruction["data"]) => Buffer.from(data ?? []).toString("hex");

/**
 * Every instruction against the policy's allow-list (when it has one): its program, and the start of its
 * data when the program lists instruction prefixes. ComputeBudget instructions are always allowed: they
 * only set the compute limit and price, which the fee limit bounds.
 */
export function checkPrograms(policy: SolanaSponsorshipPolicy, instructions: readonly Instruction[]): void {
  const allowed = policy.allowedPrograms;
  if (!allowed) return;
  for (const [index, instruction] of instructions.entries()) {
    const programId = instruction.programAddress;
    if (programId === COMPUTE_BUDGET_PROGRAM) continue;
    const program = allowed.find((p) => p.programId === programId);
    if (!program)
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.PROGRAM_NOT_ALLOWED,
        `Policy ${policy.id} does not sponsor calls to program ${programId}`,
        { programId, instruction: index },
      );
    const data = hex(instruction.data);
    if (program.instructions && !program.instructions.some((prefix) => data.startsWith(prefix)))
      throw rpcError(
        RpcErrorCode.TRANSACTION_REJECTED,
        SponsorshipErrorCode.INSTRUCTION_NOT_ALLOWED,
        `Policy ${policy.id} does not sponsor this instruction of program ${programId}`,
        { programId, instruction: index, data: data.slice(0, 16) },
      );
  }
}

/** The policy's per-transaction limits: refused by policy (asking again for the same cannot help). */
export function checkTransactionLimits(
  policy: SolanaSponsorshipPolicy,
  cost: { lamports: bigint; fee: bigint },
): void {
  const { lamportsPerTransaction, feeLamportsPerTransaction } = policy.limits;
  if (lamportsPerTransaction !== undefined && cost.lamports > BigInt(lamportsPerTransaction))
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.LAMPORTS_LIMIT_EXCEEDED,
      `The transaction moves ${cost.lamports} lamports, above policy ${policy.id}'s limit of ${lamportsPerTransaction}`,
      { limit: "lamportsPerTransaction", max: lamportsPerTransaction, requested: cost.lamports.toString() },
    );
  if (cost.fee > BigInt(feeLamportsPerTransaction))
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.FEE_LIMIT_EXCEEDED,
      `The transaction's fee may be ${cost.fee} lamports, above policy ${policy.id}'s limit of ${feeLamportsPerTransaction}`,
      { limit: "feeLamportsPerTransaction", max: feeLamportsPerTransaction, requested: cost.fee.toString() },
    );
}

/** The policy's daily limits: transactions and fee lamports, per user and per app. */
export function dailyLimitsOf(policy: SolanaSponsorshipPolicy): PolicyDailyLimits {
  const { limits } = policy;
  return {
    policyId: policy.id,
    limits: [
      {
        limit: "transactionsPerUserPerDay",
        scope: "user",
        measure: "count",
        max: limits.transactionsPerUserPerDay,
        unit: "transactions",
      },
      {
        limit: "feeLamportsPerUserPerDay",
        scope: "user",
        measure: "amount",
        max: limits.feeLamportsPerUserPerDay,
        unit: "fee lamports",
      },
      {
        limit: "transactionsPerAppPerDay",
        scope: "app",
        measure: "count",
        max: limits.transactionsPerAppPerDay,
        unit: "transactions",
      },
      {
        limit: "feeLamportsPerAppPerDay",
        scope: "app",
        measure: "amount",
        max: limits.feeLamportsPerAppPerDay,
        unit: "fee lamports",
      },
    ],
  };
}
