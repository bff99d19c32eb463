import {
  type Address,
  decodeFunctionData,
  encodeFunctionResult,
  getAddress,
  type Hex,
  parseAbi,
  stringToHex,
} from "viem";
import { describe, expect, it, vi } from "vitest";
import { tokenMetadataAbi } from "../abis";
import { createTokenInfoReader } from "./createTokenInfoReader";

const USDC = getAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const MKR = getAddress("0x9f8f72aa9304c8b593d555f12ef6589cc3a579a2");
const APES = getAddress("0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d");
const DEAD = getAddress("0xdead000000000000000000000000000000000000");

/** A chain of four contracts answering `eth_call`s as the real ones do; the rest revert. */
function chain() {
  const contracts: Record<string, Partial<Record<string, Hex>>> = {
    [USDC]: {
      symbol: encodeFunctionResult({ abi: tokenMetadataAbi, functionName: "symbol", result: "USDC" }),
      name: encodeFunctionResult({ abi: tokenMetadataAbi, functionName: "name", result: "USD Coin" }),
      decimals: encodeFunctionResult({ abi: tokenMetadataAbi, functionName: "decimals", result: 6 }),
    },
    // MKR answers bytes32.
    [MKR]: {
      symbol: stringToHex("MKR", { size: 32 }),
      name: stringToHex("Maker", { size: 32 }),
      decimals: encodeFunctionResult({ abi: tokenMetadataAbi, functionName: "decimals", result: 18 }),
    },
    [APES]: {
      symbol: encodeFunctionResult({ abi: tokenMetadataAbi, functionName: "symbol", result: "BAYC" }),
      name: encodeFunctionResult({
        abi: tokenMetadataAbi,
        functionName: "name",
        result: "BoredApeYachtClub",
      }),
      supportsInterface: encodeFunctionResult({
        abi: tokenMetadataAbi,
        functionName: "supportsInterface",
        result: true,
      }),
    },
  };
  const call = vi.fn(async ({ to, data }: { chainId: number; to: Address; data: Hex }): Promise<Hex> => {
    const { functionName } = decodeFunctionData({ abi: tokenMetadataAbi, data });
    const answer = contracts[to]?.[functionName];
    if (answer === undefined) throw new Error("execution reverted");
    return answer;
  });
  return { call, contracts };
}

describe("createTokenInfoReader", () => {
  it.each([
    [USDC, { symbol: "USDC", name: "USD Coin", decimals: 6, standard: "erc20" }],
    [MKR, { symbol: "MKR", name: "Maker", decimals: 18, standard: "erc20" }],
    [APES, { symbol: "BAYC", name: "BoredApeYachtClub", standard: "erc721" }],
    [DEAD, {}],
  ])("%s", async (address, info) => {
    const { call } = chain();
    expect(await createTokenInfoReader({ call }).read(1, address)).toEqual({ chainId: 1, address, ...info });
  });

  it("keeps answers by chain and address: a second read makes no call, another chain does", async () => {
    const { call } = chain();
    const tokens = createTokenInfoReader({ call });
    await tokens.read(1, USDC);
    expect(call).toHaveBeenCalledTimes(3);
    await tokens.read(1, USDC.toLowerCase() as Address);
    expect(call).toHaveBeenCalledTimes(3);
    await tokens.read(10, USDC);
    expect(call).toHaveBeenCalledTimes(6);
  });

  it("concurrent reads of one token share their calls", async () => {
    const { call } = chain();
    const tokens = createTokenInfoReader({ call });
    const [a, b] = await Promise.all([tokens.read(1, USDC), tokens.read(1, USDC)]);
    expect(a).toBe(b);
    expect(call).toHaveBeenCalledTimes(3);
  });

  it("forgets an answer after ttlMs (the clock injected)", async () => {
    const { call } = chain();
    let now = 0;
    const tokens = createTokenInfoReader({ call, ttlMs: 1000, now: () => now });
    await tokens.read(1, USDC);
    now = 999;
    await tokens.read(1, USDC);
    expect(call).toHaveBeenCalledTimes(3);
    now = 1000;
    await tokens.read(1, USDC);
    expect(call).toHaveBeenCalledTimes(6);
  });

  it("keeps maxEntries tokens, dropping the least recently read", async () => {
    const { call } = chain();
    const tokens = createTokenInfoReader({ call, maxEntries: 2 });
    await tokens.read(1, USDC);
    await tokens.read(1, MKR);
    await tokens.read(1, USDC); // USDC is now the most recent
    await tokens.read(1, APES); // drops MKR
    call.mockClear();
    await tokens.read(1, USDC);
    expect(call).not.toHaveBeenCalled();
    await tokens.read(1, MKR);
    expect(call).toHaveBeenCalledTimes(3);
  });

  it("a token whose every call failed is asked again next time", async () => {
    const { call } = chain();
    const tokens = createTokenInfoReader({ call });
    expect(await tokens.read(1, DEAD)).toEqual({ chainId: 1, address: DEAD });
    const calls = call.mock.calls.length;
    await tokens.read(1, DEAD);
    expect(call.mock.calls.length).toBe(calls * 2);
  });

  it("junk answers leave fields unknown, and text is cleaned", async () => {
    const junk = parseAbi(["function symbol() view returns (string)"]);
    const answers: Record<string, Hex> = {
      symbol: encodeFunctionResult({ abi: junk, functionName: "symbol", result: "US\u202eDC\n" }),
      name: "0x1234",
      decimals: `0x${"ff".repeat(32)}`,
      supportsInterface: "0x",
    };
    const tokens = createTokenInfoReader({
      call: async ({ data }) =>
        answers[decodeFunctionData({ abi: tokenMetadataAbi, data }).functionName] as Hex,
    });
    expect(await tokens.read(1, USDC)).toEqual({ chainId: 1, address: USDC, symbol: "USDC" });
  });

  it("an empty bytes32 symbol is no symbol", async () => {
    const tokens = createTokenInfoReader({ call: async () => `0x${"00".repeat(32)}` });
    expect(await tokens.read(1, USDC)).toEqual({ chainId: 1, address: USDC, decimals: 0, standard: "erc20" });
  });
});
