import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";

/** An answerable failure of one JSON-RPC call: its numeric class, a stable reason and a message. */
export class RpcError extends Error {
  readonly rpcCode: RpcErrorCode;
  readonly reason: SponsorshipErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    rpcCode: RpcErrorCode,
    reason: SponsorshipErrorCode,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "RpcError";
    this.rpcCode = rpcCode;
    this.reason = reason;
    this.details = details;
  }
}

/**
 * The one way a JSON-RPC method refuses: `throw rpcError(RpcErrorCode.INVALID_PARAMS, "POLICY_NOT_FOUND", …)`.
 *
 * @example
 * throw rpcError(RpcErrorCode.LIMIT_EXCEEDED, SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED, "…", { limit });
 */
export function rpcError(
  rpcCode: RpcErrorCode,
  reason: SponsorshipErrorCode,
  message: string,
  details?: Record<string, unknown>,
): RpcError {
  return new RpcError(rpcCode, reason, message, details);
}

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data: Record<string, unknown> };
}

export type JsonRpcMethod = (params: unknown) => Promise<unknown>;

/** More calls in one batch are refused: each may cost several calls to the chain's node. */
export const MAX_BATCH = 20;

export function errorResponse(id: JsonRpcId, e: RpcError): JsonRpcResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: { code: e.rpcCode, message: e.message, data: { code: e.reason, ...e.details } },
  };
}

/**
 * Answers a JSON-RPC 2.0 body (one request or a batch): the answer to send, or `undefined` when every
 * request was a notification (no `id`), which JSON-RPC answers with nothing. A notification runs nothing
 * here: the paymaster's methods are worth only their answer. Calls of a batch run one after the other.
 * An error that is not an `RpcError` is passed to `onInternal` (to be logged) and answered -32603.
 */
export async function answerJsonRpc(
  body: unknown,
  methods: Record<string, JsonRpcMethod>,
  onInternal: (e: unknown) => void,
): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  if (Array.isArray(body)) {
    if (body.length === 0) return invalidRequest(null, "An empty batch");
    if (body.length > MAX_BATCH) return invalidRequest(null, `A batch holds at most ${MAX_BATCH} calls`);
    const answers: JsonRpcResponse[] = [];
    for (const item of body) {
      const answer = await answerOne(item, methods, onInternal);
      if (answer) answers.push(answer);
    }
    return answers.length ? answers : undefined;
  }
  return answerOne(body, methods, onInternal);
}

async function answerOne(
  item: unknown,
  methods: Record<string, JsonRpcMethod>,
  onInternal: (e: unknown) => void,
): Promise<JsonRpcResponse | undefined> {
  if (typeof item !== "object" || item === null || Array.isArray(item))
    return invalidRequest(null, "A JSON-RPC request is an object");
  const request = item as Record<string, unknown>;
  const hasId = Object.hasOwn(request, "id");
  const id = request.id;
  if (hasId && id !== null && typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id)))
    return invalidRequest(null, "id must be a string, a number or null");
  const answerId = hasId ? (id as JsonRpcId) : null;
  if (request.jsonrpc !== "2.0") return invalidRequest(answerId, 'jsonrpc must be "2.0"');
  if (typeof request.method !== "string") return invalidRequest(answerId, "method must be a string");
  const params = request.params;
  if (params !== undefined && (typeof params !== "object" || params === null))
    return invalidRequest(answerId, "params must be an array or an object");
  if (!hasId) return undefined;
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!method)
    return errorResponse(
      answerId,
      rpcError(
        RpcErrorCode.METHOD_NOT_FOUND,
        SponsorshipErrorCode.METHOD_NOT_FOUND,
        `No method ${request.method.slice(0, 64)}; this endpoint serves ${Object.keys(methods).join(", ")}`,
      ),
    );
  try {
    return { jsonrpc: "2.0", id: answerId, result: await method(params ?? []) };
  } catch (e) {
    if (e instanceof RpcError) return errorResponse(answerId, e);
    onInternal(e);
    return errorResponse(
      answerId,
      rpcError(RpcErrorCode.INTERNAL_ERROR, SponsorshipErrorCode.INTERNAL, "Internal error"),
    );
  }
}

function invalidRequest(id: JsonRpcId, message: string): JsonRpcResponse {
  return errorResponse(
    id,
    rpcError(
      RpcErrorCode.INVALID_REQUEST,
      SponsorshipErrorCode.INVALID_REQUEST,
      `Invalid request: ${message}`,
    ),
  );
}
