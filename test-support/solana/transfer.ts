import { AccountRole, address, type Instruction, type TransactionSigner } from "@solana/kit";

/** The System program, which owns plain wallets and moves their lamports. */
export const SYSTEM_PROGRAM = address("11111111111111111111111111111111");

/**
 * A System program transfer of `amount` lamports (instruction 2: u32 index, u64 lamports, little-endian;
 * accounts: the source, a writable signer, and the writable destination). Pass a kit signer as `from` to
 * have kit's `signTransactionMessageWithSigners` sign for it.
 *
 * @example
 * const ix = systemTransfer(alice.address, bob.address, 1_000_000n);
 */
export function systemTransfer(from: string | TransactionSigner, to: string, amount: bigint): Instruction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, amount, true);
  const source =
    typeof from === "string"
      ? { address: address(from), role: AccountRole.WRITABLE_SIGNER }
      : { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from };
  return {
    programAddress: SYSTEM_PROGRAM,
    accounts: [source, { address: address(to), role: AccountRole.WRITABLE }],
    data,
  };
}
