import { type Hex, isAddressEqual, isHex, numberToHex, size } from "viem";
import { sendUserOperation } from "../../actions/sendUserOperation";
import type { PaymasterServiceInput, UserOperationCallInput } from "../../types/smartAccounts";
import { callsStatusOf, type RpcUserOperationReceiptLike } from "../calls";
import { invalidParams, ProviderRpcError, ProviderRpcErrorCode, unauthorizedAddress } from "../errors";
import type { MethodHandler, ProviderContext } from "../types";
import { asAddress, asChainId, asHex, asObject, asQuantity } from "./params";

/** The capabilities this wallet supports on every configured chain (EIP-5792 `wallet_getCapabilities`). */
const capabilities = () => ({
  atomic: { status: "supported" as const },
  paymasterService: { supported: true },
});

/** A capability this wallet does not know: ignored when `optional`, else 5700. */
function assertKnownCapabilities(
  capabilities: Record<string, unknown>,
  known: readonly string[],
  where: string,
) {
  for (const [name, value] of Object.entries(capabilities)) {
    if (known.includes(name)) continue;
    if ((value as { optional?: unknown } | null)?.optional === true) continue;
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNSUPPORTED_CAPABILITY,
      `Unsupported non-optional capability "${name}" (${where}); this wallet supports atomic batches and paymasterService`,
    );
  }
}

/** The ERC-7677 `paymasterService` capability: `{url, context?, optional?}`. */
function paymasterServiceOf(value: unknown): PaymasterServiceInput | undefined {
  if (value === undefined || value === null) return undefined;
  const { url, context } = asObject(value, "capabilities.paymasterService");
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw invalidParams("capabilities.paymasterService.url must be an http(s) URL");
  }
  if (context === undefined || context === null) return { url };
  return { url, context: asObject(context, "capabilities.paymasterService.context") };
}

/** The calls of a batch as user-operation calls. */
function callsOf(value: unknown): UserOperationCallInput[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidParams("calls must be a non-empty array");
  return value.map((raw, i) => {
    const call = asObject(raw, `calls[${i}]`);
    if (call.capabilities !== undefined && call.capabilities !== null) {
      assertKnownCapabilities(asObject(call.capabilities, `calls[${i}].capabilities`), [], `calls[${i}]`);
    }
    if (call.to === undefined || call.to === null) {
      throw invalidParams(`calls[${i}].to is required: the smart account cannot create a contract`);
    }
    const out: UserOperationCallInput = { target: asAddress(call.to, `calls[${i}].to`) };
    if (call.data !== undefined && call.data !== null) out.data = asHex(call.data, `calls[${i}].data`);
    if (call.value !== undefined && call.value !== null)
      out.value = asQuantity(call.value, `calls[${i}].value`);
    return out;
  });
}

const isConfigured = (ctx: ProviderContext, chainId: number) =>
  ctx.chains().some((c) => c.chain.id === chainId);

/**
 * `wallet_sendCalls` (EIP-5792, version 2.0.0 as viem and wagmi send it): the calls go as ONE user
 * operation, so the batch is atomic whatever `atomicRequired` says. The `paymasterService` capability
 * (ERC-7677) makes that paymaster, with its `context`, pay for this batch; without it the chain's
 * sponsorship policy applies, if it has one. Answers `{ id }` once the bundler took the operation: the
 * app's `id`, or the user operation's hash.
 */
export const walletSendCalls: MethodHandler = async (ctx, [param]) => {
  const request = asObject(param, "the calls request");
  const chainId = request.chainId === undefined ? ctx.chainId() : asChainId(request.chainId);
  if (!isConfigured(ctx, chainId)) {
    throw new ProviderRpcError(
      ProviderRpcErrorCode.UNSUPPORTED_CHAIN,
      `Unsupported chain ID ${numberToHex(chainId)}: not one of the chains configured in createSigner's chains`,
    );
  }
  // A plain chain (no bundler) refuses with 4200: no atomic batch is possible there, and viem's
  // `sendCalls(..., { experimental_fallback: true })` then sends the calls one by one itself, when the app asks.
  ctx.bundlerUrl(ctx.chain(chainId), "wallet_sendCalls");
  const requested =
    request.capabilities === undefined || request.capabilities === null
      ? {}
      : asObject(request.capabilities, "capabilities");
  assertKnownCapabilities(requested, ["paymasterService"], "the batch");
  const paymasterService = paymasterServiceOf(requested.paymasterService);
  const calls = callsOf(request.calls);
  if (request.id !== undefined && request.id !== null && typeof request.id !== "string") {
    throw invalidParams("id must be a string");
  }
  const appId = request.id as string | undefined | null;

  const account = await ctx.account(chainId);
  if (request.from !== undefined && request.from !== null) {
    if (!isAddressEqual(asAddress(request.from, "from"), account)) {
      throw new ProviderRpcError(
        ProviderRpcErrorCode.UNAUTHORIZED,
        `Calls are sent from the smart account ${account}, not from ${String(request.from)}`,
      );
    }
  }
  if (appId) ctx.calls.reserve(appId, chainId);
  let hash: Hex;
  try {
    ({ hash } = await sendUserOperation(ctx.signer, {
      uo: calls,
      chainId,
      ...(paymasterService ? { paymasterService } : {}),
    }));
  } catch (error) {
    if (appId) ctx.calls.release(appId);
    throw error;
  }
  const id = appId || hash;
  if (!appId) ctx.calls.reserve(id, chainId);
  ctx.calls.sent(id, hash);
  return { id };
};

/** What the bundler says of a user operation without a receipt: dropped (Pimlico's status method), or not. */
async function isDropped(ctx: ProviderContext, bundlerUrl: string, hash: Hex): Promise<boolean> {
  try {
    const answer = (await ctx.rpc(bundlerUrl, "pimlico_getUserOperationStatus", [hash])) as {
      status?: string;
    } | null;
    return answer?.status === "rejected" || answer?.status === "failed";
  } catch {
    return false; // another bundler: no way to tell, the batch stays pending
  }
}

const receiptOf = (ctx: ProviderContext, bundlerUrl: string, hash: Hex) =>
  ctx.rpc(bundlerUrl, "eth_getUserOperationReceipt", [hash]) as Promise<RpcUserOperationReceiptLike | null>;

/**
 * `wallet_getCallsStatus` `[id]` (EIP-5792): `{version, id, chainId, status, atomic: true, receipts}`
 * from the bundler's user-operation receipt: 100 pending, 200 confirmed, 400 dropped by the bundler
 * (off-chain failure), 500 reverted. A batch this provider did not send (e.g. before a reload) is still
 * found when its id is the user operation's hash and a configured bundler has its receipt; 5730 otherwise.
 */
export const walletGetCallsStatus: MethodHandler = async (ctx, [id]) => {
  if (typeof id !== "string" || id.length === 0) throw invalidParams("the batch id must be a string");
  const batch = ctx.calls.get(id);
  if (batch) {
    const { userOperationHash: hash } = batch;
    if (!hash) return callsStatusOf(id, batch.chainId, null);
    const bundlerUrl = ctx.bundlerUrl(ctx.chain(batch.chainId), "wallet_getCallsStatus");
    const receipt = await receiptOf(ctx, bundlerUrl, hash);
    return callsStatusOf(id, batch.chainId, receipt, !receipt && (await isDropped(ctx, bundlerUrl, hash)));
  }
  if (isHex(id) && size(id) === 32) {
    const current = ctx.chainId();
    const chains = [...ctx.chains()].sort(
      (a, b) => Number(b.chain.id === current) - Number(a.chain.id === current),
    );
    for (const config of chains) {
      if (!config.bundlerUrl) continue;
      const receipt = await receiptOf(ctx, config.bundlerUrl, id).catch(() => null);
      if (receipt) return callsStatusOf(id, config.chain.id, receipt);
    }
  }
  throw new ProviderRpcError(ProviderRpcErrorCode.UNKNOWN_BUNDLE, `Unknown batch id ${id}`);
};

/**
 * `wallet_getCapabilities` `[address?, chainIds?]` (EIP-5792): for each configured chain (or the ones
 * asked for), atomic batches (`atomic.status: "supported"`) and ERC-7677 paymaster services
 * (`paymasterService.supported: true`), keyed by hex chain id. 4100 for an address that is not this
 * wallet's smart account (or its owner), or when nobody is signed in.
 */
export const walletGetCapabilities: MethodHandler = async (ctx, [address, chainIds]) => {
  if (address !== undefined && address !== null) {
    const requested = asAddress(address, "the address");
    const user = ctx.signer.store.getState().user;
    const own =
      user && isAddressEqual(requested, user.address) ? true : isAddressEqual(requested, await ctx.account());
    if (!own) throw unauthorizedAddress(requested);
  }
  let wanted: number[] | undefined;
  if (chainIds !== undefined && chainIds !== null) {
    if (!Array.isArray(chainIds)) throw invalidParams("chainIds must be an array");
    wanted = chainIds.map((c, i) => asChainId(c, `chainIds[${i}]`));
  }
  const answer: Record<Hex, ReturnType<typeof capabilities> | { atomic: { status: "unsupported" } }> = {};
  for (const { chain, bundlerUrl } of ctx.chains()) {
    if (wanted && !wanted.includes(chain.id)) continue;
    // A plain chain (no bundler) sends one transaction at a time: no atomic batches, no paymaster.
    answer[numberToHex(chain.id)] = bundlerUrl ? capabilities() : { atomic: { status: "unsupported" } };
  }
  return answer;
};
