import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import { z } from "zod";
import { rpcError } from "../jsonRpc";

/** Solana's limit on a wire transaction (the packet size of its network, less headers): 1232 bytes. */
export const SOLANA_TRANSACTION_MAX_BYTES = 1232;
/** The base64 of that many bytes. */
const MAX_BASE64_LENGTH = Math.ceil(SOLANA_TRANSACTION_MAX_BYTES / 3) * 4;

export interface FeePayerParams {
  policyId: string;
  /** The wire transaction, decoded from base64 (not yet checked as a transaction). */
  transactionBytes: Uint8Array;
}

const paramsSchema = z.object(
  {
    policyId: z
      .string({ error: "is required: the sponsorship policy to use" })
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a policy id: 1-64 letters, digits, '_', '.' or '-'"),
    serializedTransaction: z.string({ error: "is required: the base64 wire transaction" }),
  },
  { error: "must be an object such as { policyId, serializedTransaction }" },
);

/**
 * The params of `latchkey_requestFeePayer`: `[{policyId, serializedTransaction}]`, or that object bare.
 * `serializedTransaction` must be base64 (RFC 4648, padded) of at most 1232 bytes.
 */
export function parseFeePayerParams(params: unknown): FeePayerParams {
  const raw = Array.isArray(params) ? (params.length === 1 ? params[0] : undefined) : params;
  if (raw === undefined) throw invalid("params must be [{ policyId, serializedTransaction }]");
  const parsed = paramsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join(".");
    throw invalid(path ? `${path}: ${issue?.message}` : `params ${issue?.message ?? "are invalid"}`);
  }
  const { policyId, serializedTransaction: encoded } = parsed.data;
  if (encoded.length > MAX_BASE64_LENGTH)
    throw invalidTransaction(`The transaction is above Solana's ${SOLANA_TRANSACTION_MAX_BYTES} bytes`);
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded))
    throw invalidTransaction("serializedTransaction must be base64 (padded) of a wire transaction");
  const transactionBytes = Uint8Array.from(Buffer.from(encoded, "base64"));
  if (transactionBytes.length > SOLANA_TRANSACTION_MAX_BYTES)
    throw invalidTransaction(`The transaction is above Solana's ${SOLANA_TRANSACTION_MAX_BYTES} bytes`);
  return { policyId, transactionBytes };
}

function invalid(message: string) {
  return rpcError(RpcErrorCode.INVALID_PARAMS, SponsorshipErrorCode.INVALID_PARAMS, message);
}

/** A `serializedTransaction` that is not a transaction the service can sponsor, as sent. */
export function invalidTransaction(message: string, details?: Record<string, unknown>) {
  return rpcError(
    RpcErrorCode.INVALID_PARAMS,
    SponsorshipErrorCode.SOLANA_TRANSACTION_INVALID,
    message,
    details,
  );
}
