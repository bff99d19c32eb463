import { type Address, type Hex, hexToBigInt, isAddress, isHex } from "viem";
import { invalidParams } from "../errors";

/** An address parameter (checksummed or not); -32602 otherwise. */
export function asAddress(value: unknown, name: string): Address {
  if (typeof value !== "string" || !isAddress(value, { strict: false })) {
    throw invalidParams(`${name} must be an address`);
  }
  return value;
}

/** Hex data; -32602 otherwise. */
export function asHex(value: unknown, name: string): Hex {
  if (typeof value !== "string" || !isHex(value)) throw invalidParams(`${name} must be 0x-prefixed hex`);
  return value;
}

/** A quantity (hex as JSON-RPC sends it; a number or bigint is taken too); -32602 otherwise. */
export function asQuantity(value: unknown, name: string): bigint {
  if (typeof value === "bigint" && value >= 0n) return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && isHex(value) && value.length > 2) return hexToBigInt(value);
  throw invalidParams(`${name} must be a hex quantity`);
}

/** A chain id (hex as EIP-3326 and EIP-5792 send it, or a number). */
export function asChainId(value: unknown, name = "chainId"): number {
  const id = asQuantity(value, name);
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParams(`${name} is too large`);
  return Number(id);
}

/** An object parameter; -32602 otherwise. */
export function asObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidParams(`${name} must be an object`);
  }
  return value as Record<string, unknown>;
}
