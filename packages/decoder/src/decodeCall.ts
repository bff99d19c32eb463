import { type Address, decodeFunctionData, getAddress, type Hex } from "viem";
import { ACCOUNT_CALL_SELECTORS, accountCallsAbi, tokenCallsAbi } from "./abis";
import { UNLIMITED_FROM } from "./format";
import type { Action, DecodeOptions, TokenInfo, TokenRef } from "./types";

/** How deep `execute` in `execute` is read (as the signing policies' callsOf); deeper is an unknown call. */
export const MAX_CALL_DEPTH = 4;

/** One EVM call as it is signed. */
export interface Call {
  to: Address | null;
  value: bigint;
  data: Hex;
}

/** What decodeCall needs besides the call: the chain, the caller's options and the signer's own accounts. */
export interface CallContext {
  chainId: number;
  options: DecodeOptions;
  /**
   * Accounts (lower case) that run `execute`/`executeBatch` for the signer: a user operation's sender, a
   * 7702-delegated EOA calling itself. Their calls are the signer's calls, listed inline.
   */
  own: ReadonlySet<string>;
  readToken: ReadToken;
}

/**
 * The actions one EVM call does: a native transfer, a token call, the calls a smart account runs
 * (recursively, up to MAX_CALL_DEPTH), or an unknown call named by its selector. Never throws on data
 * it cannot decode: that call is unknown.
 */
export async function decodeCall(ctx: CallContext, call: Call, depth = 0): Promise<Action[]> {
  if (call.to === null) return [{ kind: "contractCreation", value: call.value }];
  const to = call.to;
  const data = call.data.toLowerCase() as Hex;
  if (data.length <= 2) return [{ kind: "nativeTransfer", to, value: call.value }];
  const selector = data.length >= 10 ? (data.slice(0, 10) as Hex) : null;
  const unknown: Action = { kind: "unknownCall", to, selector, value: call.value };
  if (selector === null) return [unknown];

  if (ACCOUNT_CALL_SELECTORS.includes(selector)) {
    let inner: Call[];
    try {
      const decoded = decodeFunctionData({ abi: accountCallsAbi, data });
      const raw =
        decoded.functionName === "execute"
          ? [{ target: decoded.args[0], value: decoded.args[1], data: decoded.args[2] }]
          : decoded.args[0];
      inner = raw.map((c) => ({ to: getAddress(c.target), value: c.value, data: c.data }));
    } catch {
      return [unknown];
    }
    if (depth >= MAX_CALL_DEPTH) return [{ ...unknown, reason: "tooDeep" }];
    const calls = (await Promise.all(inner.map((c) => decodeCall(ctx, c, depth + 1)))).flat();
    // The signer's own account runs these calls for the signer; value sent to itself stays the signer's.
    if (ctx.own.has(to.toLowerCase())) return calls;
    return [...withValue(call), { kind: "accountCalls", account: to, calls }];
  }

  let decoded: ReturnType<typeof decodeFunctionData<typeof tokenCallsAbi>>;
  try {
    decoded = decodeFunctionData({ abi: tokenCallsAbi, data });
  } catch {
    return [unknown];
  }
  const action = await tokenAction(ctx, to, decoded);
  return [...withValue(call), action];
}

/** A token call that also sends native value sends it to the contract: both are shown. */
const withValue = (call: Call): Action[] =>
  call.value > 0n && call.to ? [{ kind: "nativeTransfer", to: call.to, value: call.value }] : [];

async function tokenAction(
  ctx: CallContext,
  to: Address,
  decoded: ReturnType<typeof decodeFunctionData<typeof tokenCallsAbi>>,
): Promise<Action> {
  const info = await ctx.readToken(to);
  const token = tokenRef(to, info);
  switch (decoded.functionName) {
    case "transfer":
      return { kind: "erc20Transfer", token, to: decoded.args[0], amount: decoded.args[1] };
    case "increaseAllowance":
      return {
        kind: "erc20IncreaseAllowance",
        token,
        spender: decoded.args[0],
        amount: decoded.args[1],
        unlimited: decoded.args[1] >= UNLIMITED_FROM,
      };
    case "transferFrom": {
      const [from, recipient, value] = decoded.args;
      // The one selector ERC-20 and ERC-721 share: the contract's metadata tells which it is.
      if (info?.standard === "erc20")
        return { kind: "erc20Transfer", token, from, to: recipient, amount: value };
      if (info?.standard === "erc721")
        return { kind: "erc721Transfer", token, from, to: recipient, tokenId: value, safe: false };
      return { kind: "tokenTransferFrom", token, from, to: recipient, value };
    }
    case "approve": {
      const [spender, value] = decoded.args;
      if (info?.standard === "erc20")
        return { kind: "erc20Approve", token, spender, amount: value, unlimited: value >= UNLIMITED_FROM };
      if (info?.standard === "erc721") return { kind: "erc721Approve", token, spender, tokenId: value };
      return { kind: "tokenApprove", token, spender, value, unlimited: value >= UNLIMITED_FROM };
    }
    case "setApprovalForAll":
      return { kind: "operatorApproval", token, operator: decoded.args[0], approved: decoded.args[1] };
    case "safeTransferFrom":
      if (decoded.args.length === 5)
        return {
          kind: "erc1155Transfer",
          token,
          from: decoded.args[0],
          to: decoded.args[1],
          ids: [decoded.args[2]],
          amounts: [decoded.args[3]],
          batch: false,
        };
      return {
        kind: "erc721Transfer",
        token,
        from: decoded.args[0],
        to: decoded.args[1],
        tokenId: decoded.args[2],
        safe: true,
      };
    case "safeBatchTransferFrom":
      return {
        kind: "erc1155Transfer",
        token,
        from: decoded.args[0],
        to: decoded.args[1],
        ids: [...decoded.args[2]],
        amounts: [...decoded.args[3]],
        batch: true,
      };
  }
}

/**
 * At most this many tokens are read for one request: a batch of thousands of token calls, or a permit of
 * thousands of tokens, costs the node no more calls than this (the others show raw units).
 */
export const MAX_TOKEN_READS = 32;

/** Reads a token's metadata once per request; undefined without a reader, past MAX_TOKEN_READS, or on failure. */
export type ReadToken = (address: Address) => Promise<TokenInfo | undefined>;

export function tokenReads(chainId: number, options: DecodeOptions): ReadToken {
  const reads = new Map<string, Promise<TokenInfo | undefined>>();
  return (address) => {
    const key = address.toLowerCase();
    let read = reads.get(key);
    if (read === undefined) {
      const tokens = options.tokens;
      if (!tokens || reads.size >= MAX_TOKEN_READS) return Promise.resolve(undefined);
      read = (async () => tokens.read(chainId, address))().catch(() => undefined);
      reads.set(key, read);
    }
    return read;
  };
}

export function tokenRef(address: Address, info: TokenInfo | undefined): TokenRef {
  const ref: TokenRef = { address };
  if (info?.symbol !== undefined) ref.symbol = info.symbol;
  if (info?.name !== undefined) ref.name = info.name;
  if (info?.decimals !== undefined) ref.decimals = info.decimals;
  return ref;
}
