import { base58 } from "@scure/base";
import { reasonOf } from "./decodeAuthorization";
import { type MessageInstruction, readSolanaTransaction } from "./solana/readMessage";
import type { Action, Decoded, DecodeOptions } from "./types";
import { actionWarnings } from "./warnings";

export type DecodeSolanaTransactionReturnType = Extract<
  Decoded,
  { kind: "solanaTransaction" | "unreadable" }
>;

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
/** From 2^63 up a u64 approval is unlimited in effect, as 2^255 is for uint256. */
const UNLIMITED_U64 = 2n ** 63n;

/**
 * What a Solana transaction does, instruction by instruction: System Program transfers and account
 * creations; SPL Token and Token-2022 transfer, transferChecked, approve, approveChecked and
 * closeAccount; other instructions named by their program. Compute budget instructions are left out.
 * Takes the wire bytes of a transaction or of its message (legacy or v0), or their base64. Never throws.
 *
 * @example
 * decodeSolanaTransaction(getTransactionEncoder().encode(transaction));
 * // → { kind: "solanaTransaction", feePayer, actions: [{ kind: "solTransfer", lamports: 1_000_000_000n, … }], … }
 */
export function decodeSolanaTransaction(
  transaction: Uint8Array | string,
  options: Pick<DecodeOptions, "valueThreshold"> = {},
): DecodeSolanaTransactionReturnType {
  try {
    const bytes = typeof transaction === "string" ? base64(transaction) : transaction;
    if (!(bytes instanceof Uint8Array)) throw new Error("not bytes");
    const message = readSolanaTransaction(bytes);
    const actions = message.instructions
      .filter((ix) => ix.programId !== COMPUTE_BUDGET_PROGRAM)
      .map(instructionAction);
    return {
      kind: "solanaTransaction",
      version: message.version,
      feePayer: message.feePayer,
      actions,
      warnings: actionWarnings(actions, options),
    };
  } catch (e) {
    const detail = reasonOf(e);
    return {
      kind: "unreadable",
      reason: detail.startsWith("unsupported message version")
        ? "unsupportedSolanaVersion"
        : "malformedSolanaTransaction",
      detail,
      warnings: [],
    };
  }
}

function base64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error("not base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function instructionAction(ix: MessageInstruction): Action {
  const unknown: Action = { kind: "unknownInstruction", programId: ix.programId };
  const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
  const u64 = (at: number) => view.getBigUint64(at, true);
  const a = (i: number) => ix.accounts[i] ?? null;
  if (ix.programId === SYSTEM_PROGRAM) {
    if (ix.data.length < 4 || ix.accounts.length < 2) return unknown;
    const tag = view.getUint32(0, true);
    if (tag === 2 && ix.data.length === 12)
      return { kind: "solTransfer", from: a(0), to: a(1), lamports: u64(4) };
    if (tag === 0 && ix.data.length === 52)
      return {
        kind: "solCreateAccount",
        from: a(0),
        account: a(1),
        lamports: u64(4),
        space: u64(12),
        owner: base58.encode(ix.data.subarray(20, 52)),
      };
    return unknown;
  }
  if (ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM) {
    const program = ix.programId === TOKEN_PROGRAM ? "token" : "token2022";
    const tag = ix.data[0];
    // The SPL Token instruction layouts: a one-byte tag, then a u64 amount (and, checked, the decimals).
    if (tag === 3 && ix.data.length === 9 && ix.accounts.length >= 3)
      return {
        kind: "splTransfer",
        program,
        source: a(0),
        destination: a(1),
        authority: a(2),
        amount: u64(1),
      };
    if (tag === 12 && ix.data.length === 10 && ix.accounts.length >= 4)
      return {
        kind: "splTransfer",
        program,
        source: a(0),
        mint: a(1),
        destination: a(2),
        authority: a(3),
        amount: u64(1),
        decimals: ix.data[9] as number,
      };
    if (tag === 4 && ix.data.length === 9 && ix.accounts.length >= 3)
      return {
        kind: "splApprove",
        program,
        source: a(0),
        delegate: a(1),
        amount: u64(1),
        unlimited: u64(1) >= UNLIMITED_U64,
      };
    if (tag === 13 && ix.data.length === 10 && ix.accounts.length >= 4)
      return {
        kind: "splApprove",
        program,
        source: a(0),
        mint: a(1),
        delegate: a(2),
        amount: u64(1),
        unlimited: u64(1) >= UNLIMITED_U64,
        decimals: ix.data[9] as number,
      };
    if (tag === 9 && ix.data.length === 1 && ix.accounts.length >= 3)
      return { kind: "splCloseAccount", program, account: a(0), destination: a(1) };
  }
  return unknown;
}
