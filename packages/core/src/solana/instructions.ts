// Loaded with ./send: instructions as @solana/kit wants them.
import { type AccountMeta, AccountRole, type Address, address, type Instruction } from "@solana/kit";
import { SolanaError } from "../errors/solana";
import type { SolanaInstructionInput, Web3TransactionInstructionInput } from "../types/solana";
import { SYSTEM_PROGRAM_ADDRESS } from "./failures";

const U64_MAX = 2n ** 64n - 1n;
/** The System program's `Transfer` instruction index (u32, little-endian). */
const SYSTEM_TRANSFER = 2;

function toAddress(value: string, what: string): Address {
  try {
    return address(value);
  } catch (cause) {
    throw new SolanaError("SOLANA_INVALID_INPUT", {
      cause,
      details: `${what} is not a Solana address: ${value}`,
    });
  }
}

function isWeb3Instruction(input: SolanaInstructionInput): input is Web3TransactionInstructionInput {
  return "programId" in input && "keys" in input;
}

function web3Role(isSigner: boolean, isWritable: boolean): AccountRole {
  if (isSigner) return isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return isWritable ? AccountRole.WRITABLE : AccountRole.READONLY;
}

/**
 * A @solana/kit instruction for each input: a kit `Instruction` as it is (lookup-table accounts become
 * plain accounts: the message is built without tables), a @solana/web3.js v1 `TransactionInstruction`
 * converted (program id, keys with their signer and writable flags, data).
 */
export function toKitInstructions(inputs: readonly SolanaInstructionInput[]): Instruction[] {
  if (inputs.length === 0)
    throw new SolanaError("SOLANA_INVALID_INPUT", { details: "instructions must not be empty" });
  return inputs.map((input, i) => {
    if (isWeb3Instruction(input)) {
      return {
        programAddress: toAddress(input.programId.toBase58(), `instructions[${i}].programId`),
        accounts: input.keys.map(
          (key, k): AccountMeta => ({
            address: toAddress(key.pubkey.toBase58(), `instructions[${i}].keys[${k}]`),
            role: web3Role(key.isSigner, key.isWritable),
          }),
        ),
        data: Uint8Array.from(input.data),
      };
    }
    if (typeof input?.programAddress !== "string")
      throw new SolanaError("SOLANA_INVALID_INPUT", {
        details: `instructions[${i}] is neither a @solana/kit Instruction nor a @solana/web3.js TransactionInstruction`,
      });
    return {
      programAddress: toAddress(input.programAddress, `instructions[${i}].programAddress`),
      ...(input.accounts
        ? {
            accounts: input.accounts.map(
              (a, k): AccountMeta => ({
                address: toAddress(a.address, `instructions[${i}].accounts[${k}]`),
                role: a.role,
              }),
            ),
          }
        : {}),
      ...(input.data ? { data: input.data } : {}),
    };
  });
}

/** The System program's transfer of `amount` lamports from `from` to `toAddress`. */
export function transferInstruction(from: string, toAddress_: string, amount: bigint | number): Instruction {
  if (typeof amount === "number" && !Number.isSafeInteger(amount))
    throw new SolanaError("SOLANA_INVALID_INPUT", {
      details: `amount must be a whole number of lamports (a bigint above 2^53): ${amount}`,
    });
  const lamports = BigInt(amount);
  if (lamports < 0n || lamports > U64_MAX)
    throw new SolanaError("SOLANA_INVALID_INPUT", { details: `amount is out of range: ${lamports}` });
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, SYSTEM_TRANSFER, true);
  view.setBigUint64(4, lamports, true);
  return {
    programAddress: address(SYSTEM_PROGRAM_ADDRESS),
    accounts: [
      { address: toAddress(from, "the signer"), role: AccountRole.WRITABLE_SIGNER },
      { address: toAddress(toAddress_, "transfer.toAddress"), role: AccountRole.WRITABLE },
    ],
    data,
  };
}

/** A @solana/kit `TransactionPartialSigner` (only what is used here). */
export interface PartialSigner {
  signTransactions(transactions: readonly never[]): Promise<readonly Record<string, Uint8Array>[]>;
}

/**
 * The kit signers the instructions carry on their accounts (`AccountSignerMeta.signer`, e.g. a new
 * account's `generateKeyPairSigner()`), by address: they add their signatures beside the user's.
 */
export function partialSignersOf(inputs: readonly SolanaInstructionInput[]): Map<string, PartialSigner> {
  const signers = new Map<string, PartialSigner>();
  for (const input of inputs) {
    if (isWeb3Instruction(input)) continue;
    for (const account of input.accounts ?? []) {
      const signer = (account as { signer?: { signTransactions?: unknown } }).signer;
      if (typeof signer?.signTransactions === "function")
        signers.set(account.address, signer as PartialSigner);
    }
  }
  return signers;
}
