import type { Instruction } from "@solana/kit";
import { invalidTransaction } from "./parseParams";

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
/** Signature-verifying precompiles: each signature they check costs the fee payer one signature fee. */
const PRECOMPILES = new Set([
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
]);

/** Solana's base fee per signature. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/** Compute units an instruction gets when the transaction sets no limit, and the most a transaction gets. */
export const DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION = 200_000n;
export const MAX_COMPUTE_UNITS = 1_400_000n;

const u32 = (data: Uint8Array, at: number) =>
  BigInt(new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(at, true));
const u64 = (data: Uint8Array, at: number) =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);

const dataOf = (instruction: Instruction) => Uint8Array.from(instruction.data ?? []);

/**
 * Where a System program instruction (bincode: a u32 LE tag, then its fields) keeps the lamports it moves,
 * for those that move any: transfer, createAccount, createAccountWithSeed, withdrawNonceAccount,
 * transferWithSeed. Other instructions move none.
 */
function systemLamports(data: Uint8Array): bigint | undefined {
  if (data.length < 4) return undefined;
  const tag = u32(data, 0);
  const at = (offset: number) => (data.length >= offset + 8 ? u64(data, offset) : undefined);
  switch (tag) {
    case 0n: // CreateAccount { lamports, space, owner }
    case 2n: // Transfer { lamports }
    case 5n: // WithdrawNonceAccount(lamports)
    case 11n: // TransferWithSeed { lamports, from_seed, from_owner }
      return at(4);
    case 3n: {
      // CreateAccountWithSeed { base, seed: String (u64 length + bytes), lamports, space, owner }
      const seedLength = at(36);
      if (seedLength === undefined || seedLength > 32n) return undefined;
      return at(44 + Number(seedLength));
    }
    default:
      return 0n;
  }
}

/**
 * The lamports the transaction's System program instructions move, summed. An instruction of those that
 * move lamports whose data is too short to say how many is refused: it would only fail on-chain, at the
 * fee payer's cost.
 */
export function lamportsMoved(instructions: readonly Instruction[]): bigint {
  let total = 0n;
  for (const [index, instruction] of instructions.entries()) {
    if (instruction.programAddress !== SYSTEM_PROGRAM) continue;
    const lamports = systemLamports(dataOf(instruction));
    if (lamports === undefined)
      throw invalidTransaction(`Instruction ${index} is not a System program instruction that decodes`, {
        instruction: index,
      });
    total += lamports;
  }
  return total;
}

/** What the ComputeBudget instructions set: the compute unit limit and price (micro-lamports per unit). */
interface ComputeBudget {
  unitLimit: bigint | undefined;
  microLamportsPerUnit: bigint;
}

/**
 * Reads the ComputeBudget instructions as the runtime does: each kind at most once (twice fails the
 * transaction), exact sizes. Deprecated or unknown ones are refused: the transaction would fail.
 */
function computeBudget(instructions: readonly Instruction[]): ComputeBudget {
  const seen = new Set<number>();
  const budget: ComputeBudget = { unitLimit: undefined, microLamportsPerUnit: 0n };
  for (const [index, instruction] of instructions.entries()) {
    if (instruction.programAddress !== COMPUTE_BUDGET_PROGRAM) continue;
    const data = dataOf(instruction);
    const kind = data[0];
    // 1 RequestHeapFrame(u32), 2 SetComputeUnitLimit(u32), 3 SetComputeUnitPrice(u64),
    // 4 SetLoadedAccountsDataSizeLimit(u32).
    const size = kind === 3 ? 9 : kind === 1 || kind === 2 || kind === 4 ? 5 : undefined;
    if (kind === undefined || size === undefined || data.length !== size || seen.has(kind))
      throw invalidTransaction(
        `Instruction ${index} is not a ComputeBudget instruction the runtime accepts (or repeats one)`,
        { instruction: index },
      );
    seen.add(kind);
    if (kind === 2) budget.unitLimit = u32(data, 1);
    if (kind === 3) budget.microLamportsPerUnit = u64(data, 1);
  }
  return budget;
}

/**
 * The most the fee payer pays for the transaction: 5000 lamports per signature (the transaction's own and
 * those the signature precompiles verify), plus the priority fee, the compute unit price × the unit limit
 * (the SetComputeUnitLimit value, else 200,000 per instruction that is not a ComputeBudget one; at most
 * 1,400,000), rounded up from micro-lamports.
 *
 * @example
 * transactionFee(message.instructions, 2) // 10_000n for a plain transfer the fee payer co-signs
 */
export function transactionFee(instructions: readonly Instruction[], signatures: number): bigint {
  let signatureCount = BigInt(signatures);
  for (const instruction of instructions)
    if (PRECOMPILES.has(instruction.programAddress)) signatureCount += BigInt(dataOf(instruction)[0] ?? 0);
  const budget = computeBudget(instructions);
  const others = instructions.filter((i) => i.programAddress !== COMPUTE_BUDGET_PROGRAM).length;
  const requested = budget.unitLimit ?? DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION * BigInt(others);
  const units = requested < MAX_COMPUTE_UNITS ? requested : MAX_COMPUTE_UNITS;
  const priorityFee = (budget.microLamportsPerUnit * units + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * signatureCount + priorityFee;
}
