import { ErrorCode } from "@latchkey/protocol";
import {
  type Hex,
  keccak256,
  parseTransaction,
  serializeTransaction,
  type TransactionSerializable,
} from "viem";
import { apiError } from "../../errors";
import type { SigningRequest } from "./evaluatePolicy";

/**
 * An unsigned serialized EVM transaction (`sign_transaction`'s `unsignedTransaction`), read with viem:
 * legacy (with or without EIP-155), EIP-2930, EIP-1559, EIP-4844 (without sidecars) and EIP-7702. It
 * must be the canonical serialization of what it parses to, and unsigned: what the policy reads is then
 * exactly what is signed.
 */
export function parseUnsignedTransaction(hex: string): TransactionSerializable {
  const serialized = (hex.startsWith("0x") ? hex : `0x${hex}`).toLowerCase() as Hex;
  let tx: TransactionSerializable;
  try {
    tx = parseTransaction(serialized) as TransactionSerializable;
  } catch {
    throw apiError(ErrorCode.INVALID_REQUEST, "unsignedTransaction is not a serialized EVM transaction");
  }
  const signed = tx as { r?: unknown; s?: unknown; v?: unknown; yParity?: unknown };
  if (signed.r !== undefined || signed.s !== undefined || signed.yParity !== undefined) {
    throw apiError(ErrorCode.INVALID_REQUEST, "unsignedTransaction is already signed");
  }
  let again: Hex;
  try {
    again = serializeTransaction(tx);
  } catch {
    throw apiError(ErrorCode.INVALID_REQUEST, "unsignedTransaction is not a serialized EVM transaction");
  }
  if (again.toLowerCase() !== serialized) {
    throw apiError(ErrorCode.INVALID_REQUEST, "unsignedTransaction is not in its canonical encoding");
  }
  return tx;
}

/**
 * What a signing policy reads of a transaction: chain, target, selector (in its data) and value, the
 * delegates of an EIP-7702 transaction's authorizations, and who signs it (`signer`, an EVM address:
 * a transaction to the signer's own accounts is read as the calls they run, callsOf.ts).
 */
export function transactionSigningRequest(
  tx: TransactionSerializable,
  signer: string | undefined,
): SigningRequest {
  const authorizations = (tx as { authorizationList?: { address: string }[] }).authorizationList ?? [];
  return {
    kind: "transaction",
    chainId: tx.chainId,
    to: tx.to ? (tx.to.toLowerCase() as Hex) : null,
    data: (tx.data ?? "0x") as Hex,
    value: tx.value ?? 0n,
    ...(signer?.startsWith("0x") && signer.length === 42 ? { signer: signer.toLowerCase() as Hex } : {}),
    ...(authorizations.length
      ? { delegates: authorizations.map((a) => a.address.toLowerCase() as Hex) }
      : {}),
  };
}

/** The transaction's signing hash: keccak256 of its unsigned serialization. */
export function transactionHash(tx: TransactionSerializable): Uint8Array {
  return keccak256(serializeTransaction(tx), "bytes");
}

/** The transaction serialized with its signature (v as 27/28; viem applies EIP-155 to legacy ones). */
export function serializeSigned(tx: TransactionSerializable, sig: { r: string; s: string; v: number }): Hex {
  return serializeTransaction(tx, {
    r: `0x${sig.r}`,
    s: `0x${sig.s}`,
    v: BigInt(27 + sig.v),
    yParity: sig.v,
  });
}
