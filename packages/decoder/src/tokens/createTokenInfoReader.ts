import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToString,
  isHex,
} from "viem";
import { bytes32MetadataAbi, ERC721_INTERFACE_ID, tokenMetadataAbi } from "../abis";
import type { TokenInfo, TokenInfoReader } from "../types";

/** An `eth_call`: the caller's RPC client (viem's `client.call`, a fetch to the node, a test double). */
export type TokenInfoCall = (request: { chainId: number; to: Address; data: Hex }) => Promise<Hex>;

export interface CreateTokenInfoReaderParameters {
  call: TokenInfoCall;
  /** How long an answer is kept: 1 hour by default. */
  ttlMs?: number;
  /** How many tokens are kept: the least recently read goes first (1000 by default). */
  maxEntries?: number;
  /** The clock, injectable for tests. */
  now?: () => number;
}

/**
 * Reads a token's symbol, name and decimals (and, without decimals, whether ERC-165 says ERC-721)
 * through `call`, and keeps each answer `ttlMs` in an in-memory LRU keyed by chain id and address.
 * A symbol or name in bytes32 (MKR) is read as text; a revert or junk answer leaves that field unknown.
 * Concurrent reads of one token share one set of calls. A token whose every call failed is not kept
 * (a node that was down is asked again).
 *
 * @example
 * const tokens = createTokenInfoReader({ call: ({ to, data }) => client.call({ to, data }).then((r) => r.data ?? "0x") });
 * await tokens.read(1, USDC); // → { chainId: 1, address: USDC, symbol: "USDC", name: "USD Coin", decimals: 6, standard: "erc20" }
 */
export function createTokenInfoReader({
  call,
  ttlMs = 3_600_000,
  maxEntries = 1000,
  now = Date.now,
}: CreateTokenInfoReaderParameters): TokenInfoReader {
  // A Map keeps insertion order: re-inserting on a hit makes its first key the least recently used.
  const cache = new Map<string, { expires: number; info: Promise<TokenInfo> }>();

  const read = (chainId: number, address: Address): Promise<TokenInfo> => {
    const to = getAddress(address);
    const key = `${chainId}:${to.toLowerCase()}`;
    const hit = cache.get(key);
    cache.delete(key);
    if (hit && hit.expires > now()) {
      cache.set(key, hit);
      return hit.info;
    }
    const info = readTokenInfo(call, chainId, to).then((read) => {
      if (!read.answered && cache.get(key)?.info === info) cache.delete(key);
      return read.info;
    });
    cache.set(key, { expires: now() + ttlMs, info });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return info;
  };
  return { read };
}

async function readTokenInfo(
  call: TokenInfoCall,
  chainId: number,
  to: Address,
): Promise<{ info: TokenInfo; answered: boolean }> {
  let answered = false;
  const ask = async (data: Hex): Promise<Hex | undefined> => {
    try {
      const result = await call({ chainId, to, data });
      answered = true;
      return isHex(result, { strict: true }) && result.length > 2 ? result : undefined;
    } catch {
      return undefined;
    }
  };
  const [symbol, name, decimals] = await Promise.all([
    ask(encodeFunctionData({ abi: tokenMetadataAbi, functionName: "symbol" })).then((r) => text(r, "symbol")),
    ask(encodeFunctionData({ abi: tokenMetadataAbi, functionName: "name" })).then((r) => text(r, "name")),
    ask(encodeFunctionData({ abi: tokenMetadataAbi, functionName: "decimals" })).then(readDecimals),
  ]);
  const info: TokenInfo = { chainId, address: to };
  if (symbol !== undefined) info.symbol = symbol;
  if (name !== undefined) info.name = name;
  if (decimals !== undefined) {
    info.decimals = decimals;
    info.standard = "erc20";
  } else {
    const erc721 = await ask(
      encodeFunctionData({
        abi: tokenMetadataAbi,
        functionName: "supportsInterface",
        args: [ERC721_INTERFACE_ID],
      }),
    );
    if (
      erc721 !== undefined &&
      decodeOr(() =>
        decodeFunctionResult({ abi: tokenMetadataAbi, functionName: "supportsInterface", data: erc721 }),
      ) === true
    )
      info.standard = "erc721";
  }
  return { info, answered };
}

/** A string answer, or bytes32 text (MKR's symbol), cleaned of control characters; undefined when neither. */
function text(result: Hex | undefined, functionName: "symbol" | "name"): string | undefined {
  if (result === undefined) return undefined;
  const value =
    result.length === 66
      ? decodeOr(() =>
          hexToString(decodeFunctionResult({ abi: bytes32MetadataAbi, functionName, data: result }), {
            size: 32,
          }),
        )
      : decodeOr(() => decodeFunctionResult({ abi: tokenMetadataAbi, functionName, data: result }));
  if (typeof value !== "string") return undefined;
  // A token names itself: nothing that could break a line or pass for another text (control characters, zero-width and bidi format characters).
  const clean = value.replace(/[\p{Cc}\p{Cf}]/gu, "").trim();
  return clean.length > 0 ? clean.slice(0, 64) : undefined;
}

function readDecimals(result: Hex | undefined): number | undefined {
  if (result === undefined) return undefined;
  // Decoded as uint256 first: a uint8 decode of a larger word would throw, and a contract may answer any word.
  const value = decodeOr(() => BigInt(result.slice(0, 66)));
  return typeof value === "bigint" && result.length >= 66 && value <= 255n ? Number(value) : undefined;
}

function decodeOr<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
