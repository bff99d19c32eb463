import {
  type Address,
  address,
  compileTransaction,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  type SignatureBytes,
  setTransactionMessageFeePayer,
} from "@solana/kit";
import type { App } from "../../../apps/appDirectory";
import type { ServiceContext } from "../../../context";
import { assertChargeable, type RpcCaller } from "../rpcCaller";
import {
  addedUsage,
  checkDailyLimits,
  readUsage,
  reserveSpend,
  solanaTransactionSpend,
  utcDay,
} from "../spending";
import { checkOnNode } from "./checkOnNode";
import {
  checkFeePayerUnused,
  checkPrograms,
  checkTransactionLimits,
  dailyLimitsOf,
  solanaPolicyOf,
} from "./checkPolicy";
import { decodeTransaction } from "./decodeTransaction";
import { invalidTransaction, parseFeePayerParams, SOLANA_TRANSACTION_MAX_BYTES } from "./parseParams";
import { resolveSolanaUser } from "./resolveUser";
import { lamportsMoved, transactionFee } from "./transactionCost";

export interface RequestFeePayerResult {
  /** Base64 wire transaction: the fee payer set and its signature in; the user's slot left empty. */
  serializedTransaction: string;
}

/**
 * `latchkey_requestFeePayer`: the service's Solana fee payer pays for a user's transaction. The client
 * sends the transaction it built with its own address as fee payer (it need not know the service's);
 * the answer has the same instructions and blockhash, recompiled with the service's fee payer, and the fee
 * payer's signature: the client signs the returned message and sends it.
 *
 * In order: the params and the policy; the transaction decodes (legacy or v0, no lookup tables); no
 * instruction names the fee payer; the policy's programs and instructions; the lamports moved and the fee
 * against the per-transaction limits; one signer is a user of this app (whose daily limits apply): the
 * request's stamped user, or, unstamped and only under a policy without per-user limits, the first such
 * signer (rpcCaller.ts). Then the fee payer signs (its signature is the transaction's id, the key of its
 * reservation: the same message asked for twice is the same signature and counts once); the daily limits are checked without locks (so
 * a refusal costs no call to the node); with a node configured, the blockhash must be valid and the fee
 * payer funded; the fee is reserved against the daily limits in one database transaction; and only then
 * is the answer sent. A refusal returns no signature and records nothing.
 *
 * @example
 * // → {"jsonrpc":"2.0","id":1,"method":"latchkey_requestFeePayer",
 * //    "params":[{"policyId":"sol_transfers","serializedTransaction":"AQAAAA…"}]}
 * // ← {"jsonrpc":"2.0","id":1,"result":{"serializedTransaction":"AgAAAA…"}}
 */
export async function requestFeePayer(
  ctx: Pick<ServiceContext, "audit" | "db" | "dbKind" | "now" | "serviceKeys" | "solana">,
  params: { app: App; caller: RpcCaller | undefined; rpcParams: unknown },
): Promise<RequestFeePayerResult> {
  const { app } = params;
  const p = parseFeePayerParams(params.rpcParams);
  const policy = solanaPolicyOf(app, p.policyId);
  const { compiled, message } = decodeTransaction(p.transactionBytes);
  const feePayer = await ctx.serviceKeys.solanaAddress("solanaFeePayer");
  checkFeePayerUnused(message.instructions, feePayer);
  checkPrograms(policy, message.instructions);
  const lamports = lamportsMoved(message.instructions);

  const sponsored = compileTransaction(setTransactionMessageFeePayer(address(feePayer), message));
  const wireLength = getTransactionEncoder().encode(sponsored).length;
  if (wireLength > SOLANA_TRANSACTION_MAX_BYTES)
    throw invalidTransaction(
      `With the service's fee payer the transaction would be ${wireLength} bytes, above Solana's ${SOLANA_TRANSACTION_MAX_BYTES}`,
    );
  const signers = Object.keys(sponsored.signatures);
  const fee = transactionFee(message.instructions, signers.length);
  checkTransactionLimits(policy, { lamports, fee });

  const user = await resolveSolanaUser(ctx, {
    appId: app.id,
    signers: signers.filter((s) => s !== feePayer),
    ...(params.caller ? { userId: params.caller.userId } : {}),
  });
  const daily = dailyLimitsOf(policy);
  assertChargeable(daily, params.caller, user.userId);
  const now = ctx.now();
  const day = utcDay(now);
  const owner = { appId: app.id, policyId: policy.id, userId: user.userId };
  const signature = await ctx.serviceKeys.signEd25519(
    "solanaFeePayer",
    Uint8Array.from(sponsored.messageBytes),
  );
  const record = solanaTransactionSpend({
    signature: getBase58Decoder().decode(signature),
    userAddress: user.address,
    lamports,
  });
  checkDailyLimits(
    daily,
    await readUsage(ctx.db, owner, day),
    addedUsage(await record.previous(ctx.db, owner, day), fee),
    now,
  );
  if (ctx.solana)
    await checkOnNode(ctx.solana, {
      // A durable-nonce transaction's lifetime is its nonce: the node has no blockhash to check.
      blockhash: "blockhash" in message.lifetimeConstraint ? compiled.lifetimeToken : undefined,
      feePayer,
      fee,
    });
  await reserveSpend(ctx, { policy: daily, owner, record, amount: fee });
  return {
    serializedTransaction: getBase64EncodedWireTransaction({
      ...sponsored,
      signatures: { ...sponsored.signatures, [feePayer as Address]: signature as SignatureBytes },
    }),
  };
}
