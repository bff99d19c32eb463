import { type Address, getAddress, isAddress } from "viem";

/** 2^255: an approval from here up is unlimited in effect (max uint256, or anything a wallet rounds to it). */
export const UNLIMITED_FROM = 2n ** 255n;
export const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";

/** The checksummed address; throws on anything that is not 20 bytes of hex (callers catch). */
export function toAddress(value: unknown): Address {
  if (typeof value !== "string" || !isAddress(value, { strict: false })) throw new Error("not an address");
  return getAddress(value);
}

/** A bigint from what typed data or JSON carries (bigint, safe integer, decimal or 0x string); throws otherwise. */
export function toBigInt(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  throw new Error("not an integer");
}

/** A non-negative safe integer, or undefined. */
export function toSafeNumber(value: unknown): number | undefined {
  try {
    const n = toBigInt(value);
    return n >= 0n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
  } catch {
    return undefined;
  }
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
