import { ErrorCode, type HashFunction, type PayloadEncoding } from "@latchkey/protocol";
import { type Hex, hashMessage, hashTypedData, hexToBytes, isAddress, type TypedDataDefinition } from "viem";
import { hashAuthorization } from "viem/utils";
import { apiError } from "../../errors";
import type { SigningRequest } from "./evaluatePolicy";
import { typedDataRequest } from "./typedDataRequest";

/**
 * Payloads the service hashes itself (protocol's payloadEncodingSchema), so that the app's signing policy
 * reads what is signed: EIP-712 typed data, an EIP-7702 authorization, an EIP-191 message. What the
 * policy reads and what is signed come from the same parsed value.
 */
export type StructuredPayload =
  | { encoding: "PAYLOAD_ENCODING_EIP712"; typedData: TypedDataDefinition }
  | {
      encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION";
      authorization: { chainId: number; address: Hex; nonce: bigint };
    }
  | { encoding: "PAYLOAD_ENCODING_EIP191_MESSAGE"; message: Hex };

const STRUCTURED = new Set<PayloadEncoding>([
  "PAYLOAD_ENCODING_EIP712",
  "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
  "PAYLOAD_ENCODING_EIP191_MESSAGE",
]);

export function isStructuredEncoding(encoding: PayloadEncoding): boolean {
  return STRUCTURED.has(encoding);
}

const invalid = (message: string) => apiError(ErrorCode.INVALID_REQUEST, message);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a structured payload (400 INVALID_REQUEST when it is not what its encoding says). The service
 * computes the hash, as Turnkey does: hashFunction is HASH_FUNCTION_NOT_APPLICABLE (NO_OP is taken too).
 */
export function readStructuredPayload(
  payload: string,
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
): StructuredPayload {
  if (hashFunction !== "HASH_FUNCTION_NOT_APPLICABLE" && hashFunction !== "HASH_FUNCTION_NO_OP")
    throw invalid(`${encoding} is hashed by the service: hashFunction must be HASH_FUNCTION_NOT_APPLICABLE`);
  if (encoding === "PAYLOAD_ENCODING_EIP191_MESSAGE") {
    const hex = payload.startsWith("0x") ? payload.slice(2) : payload;
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex))
      throw invalid("payload is not the message's bytes in hex for PAYLOAD_ENCODING_EIP191_MESSAGE");
    return { encoding, message: `0x${hex.toLowerCase()}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw invalid(`payload is not JSON for ${encoding}`);
  }
  if (encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
    const { chainId, address, nonce } = isObject(json) ? json : {};
    const chain = integer(chainId);
    const n = integer(nonce);
    if (
      chain === null ||
      chain > BigInt(Number.MAX_SAFE_INTEGER) ||
      n === null ||
      n >= 2n ** 64n ||
      typeof address !== "string" ||
      !isAddress(address, { strict: false })
    )
      throw invalid("payload must be an EIP-7702 authorization: {chainId, address, nonce}");
    return { encoding, authorization: { chainId: Number(chain), address: address as Hex, nonce: n } };
  }
  if (encoding !== "PAYLOAD_ENCODING_EIP712") throw invalid(`${encoding} is not a structured encoding`);
  const { types, primaryType, domain, message } = isObject(json) ? json : {};
  if (!isObject(types) || typeof primaryType !== "string" || !isObject(message) || !isObject(domain ?? {}))
    throw invalid("payload must be EIP-712 typed data: types, primaryType, domain and message");
  const typedData = { types, primaryType, domain: domain ?? {}, message } as TypedDataDefinition;
  try {
    // viem checks every value against its type while hashing.
    hashTypedData(typedData);
  } catch {
    throw invalid("payload is not valid EIP-712 typed data: a value does not match its type");
  }
  return { encoding, typedData };
}

/** The 32-byte digest the account signs for a structured payload. */
export function structuredDigest(payload: StructuredPayload): Uint8Array {
  if (payload.encoding === "PAYLOAD_ENCODING_EIP191_MESSAGE")
    return hexToBytes(hashMessage({ raw: payload.message }));
  if (payload.encoding === "PAYLOAD_ENCODING_EIP712") return hexToBytes(hashTypedData(payload.typedData));
  const { chainId, address, nonce } = payload.authorization;
  return hexToBytes(hashAuthorization({ chainId, address, nonce: nonce as unknown as number }));
}

/** A non-negative integer written as a JSON number, a decimal string or a 0x hex string; else null. */
function integer(v: unknown): bigint | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null;
  if (typeof v === "string" && /^(\d{1,78}|0x[0-9a-fA-F]{1,64})$/.test(v)) return BigInt(v);
  return null;
}

/**
 * What a policy reads of one payload for the account `signWith`: bytes for a Solana account; a bare
 * digest (HEXADECIMAL, TEXT_UTF8) on an EVM account; else the typed data, authorization or message.
 */
export function payloadSigningRequest(params: {
  signWith: string;
  payload: string;
  encoding: PayloadEncoding;
  hashFunction: HashFunction;
}): SigningRequest {
  const structured = isStructuredEncoding(params.encoding);
  // Base58 has no "0": only an EVM address starts with 0x.
  if (!params.signWith.startsWith("0x")) {
    if (structured) throw invalid(`${params.encoding} is signed by an EVM account, not a Solana one`);
    return { kind: "solanaPayload" };
  }
  if (!structured) return { kind: "rawPayload" };
  const read = readStructuredPayload(params.payload, params.encoding, params.hashFunction);
  if (read.encoding === "PAYLOAD_ENCODING_EIP191_MESSAGE") return { kind: "message" };
  if (read.encoding === "PAYLOAD_ENCODING_EIP712") {
    try {
      return typedDataRequest(read.typedData, params.signWith);
    } catch {
      // viem took the values while hashing; a value it took but BigInt does not is refused, not guessed.
      throw invalid("payload is not valid EIP-712 typed data: a value does not match its type");
    }
  }
  return {
    kind: "authorization",
    chainId: read.authorization.chainId,
    delegate: read.authorization.address.toLowerCase() as Hex,
  };
}
