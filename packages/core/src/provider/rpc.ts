import { ProviderRpcError, ProviderRpcErrorCode } from "./errors";

let nextId = 0;

/**
 * One JSON-RPC 2.0 call over HTTP (a chain's node or a bundler). The node's error comes back as a
 * {@link ProviderRpcError} with the node's code, message and data; an endpoint that cannot be reached
 * (or answers something other than JSON-RPC) as 4901, chain disconnected.
 */
export async function jsonRpc(
  url: string,
  method: string,
  params: unknown,
  fetchFn: typeof fetch = globalThis.fetch,
): Promise<unknown> {
  let body: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  try {
    const response = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: params ?? [] }),
    });
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new ProviderRpcError(
      ProviderRpcErrorCode.CHAIN_DISCONNECTED,
      `The chain's endpoint could not be reached (${method})`,
      { cause: error },
    );
  }
  if (body.error) {
    const { code, message, data } = body.error;
    throw new ProviderRpcError(
      typeof code === "number" ? code : ProviderRpcErrorCode.INTERNAL_ERROR,
      typeof message === "string" ? message : `${method} failed`,
      { data },
    );
  }
  return body.result ?? null;
}
