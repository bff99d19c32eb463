import { encodeFunctionData, erc20Abi, erc721Abi, erc1155Abi, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { argsOf } from "./callArgs";
import type { Call } from "./signingRequest";

// What a rule's `args` reads from a call (policySchema.ts RuleArgs): recipients, amounts, spenders.
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const token = TOKEN.toLowerCase() as `0x${string}`;
const FROM = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const to = TO.toLowerCase() as `0x${string}`;
const SPENDER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const spender = SPENDER.toLowerCase() as `0x${string}`;

const callTo = (data: `0x${string}`, value = 0n, target: `0x${string}` | null = TOKEN): Call => ({
  to: target,
  data,
  value,
});
/** A selector followed by raw 32-byte words (64 hex digits each). */
const raw = (selector: string, ...words: string[]) => `${selector}${words.join("")}` as `0x${string}`;
const word = (hex: string) => hex.padStart(64, "0");
const nothing = { recipients: [], amounts: [], spenders: [] };

describe("argsOf: a call's decoded arguments", () => {
  it("native value: the call's target receives it, in wei; no value or no target, nothing", () => {
    expect(argsOf(callTo("0x", 5n, TO))).toEqual({
      recipients: [to],
      amounts: [{ token: "native", amount: 5n }],
      spenders: [],
    });
    expect(argsOf(callTo("0x", 0n, TO))).toEqual(nothing);
    // A contract creation (no `to`) sends its value to no address a rule can name, and its code is no call.
    expect(argsOf(callTo(raw("0xa9059cbb", word(TO.slice(2)), word("5")), 7n, null))).toEqual(nothing);
  });

  it("ERC-20 transfer: recipient and amount, on the token the call is to; value on top", () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, 1234n] });
    expect(argsOf(callTo(data))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 1234n }],
      spenders: [],
    });
    expect(argsOf(callTo(data, 3n))).toEqual({
      recipients: [token, to],
      amounts: [
        { token: "native", amount: 3n },
        { token, amount: 1234n },
      ],
      spenders: [],
    });
  });

  it("reads call data and addresses whatever their case", () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, 0xabn] });
    const upper = `0x${data.slice(2).toUpperCase()}` as `0x${string}`;
    expect(argsOf(callTo(upper))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 0xabn }],
      spenders: [],
    });
  });

  it("transferFrom (ERC-20 amount or ERC-721 id): the second argument receives, the third is the amount", () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [FROM, TO, 77n] });
    expect(argsOf(callTo(data))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 77n }],
      spenders: [],
    });
  });

  it("ERC-721 safeTransferFrom with and without data, ERC-1155 batch: the recipient, no amount", () => {
    const safe = encodeFunctionData({
      abi: parseAbi(["function safeTransferFrom(address,address,uint256)"]),
      args: [FROM, TO, 9n],
    });
    const safeData = encodeFunctionData({
      abi: parseAbi(["function safeTransferFrom(address,address,uint256,bytes)"]),
      args: [FROM, TO, 9n, "0x1234"],
    });
    const batch = encodeFunctionData({
      abi: erc1155Abi,
      functionName: "safeBatchTransferFrom",
      args: [FROM, TO, [1n, 2n], [10n, 20n], "0x"],
    });
    expect(safe.slice(0, 10)).toBe("0x42842e0e");
    expect(safeData.slice(0, 10)).toBe("0xb88d4fde");
    expect(batch.slice(0, 10)).toBe("0x2eb2c2d6");
    for (const data of [safe, safeData, batch])
      expect(argsOf(callTo(data))).toEqual({ recipients: [to], amounts: [], spenders: [] });
  });

  it("ERC-1155 safeTransferFrom: the recipient, and the fourth argument as the amount of the token contract", () => {
    const data = encodeFunctionData({
      abi: erc1155Abi,
      functionName: "safeTransferFrom",
      args: [FROM, TO, 5n, 300n, "0x"],
    });
    expect(data.slice(0, 10)).toBe("0xf242432a");
    expect(argsOf(callTo(data))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 300n }],
      spenders: [],
    });
  });

  it("approve, increaseAllowance, setApprovalForAll: the spender, and neither recipient nor amount", () => {
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, 10n] });
    const increase = encodeFunctionData({
      abi: parseAbi(["function increaseAllowance(address,uint256)"]),
      args: [SPENDER, 10n],
    });
    const all = encodeFunctionData({
      abi: erc721Abi,
      functionName: "setApprovalForAll",
      args: [SPENDER, true],
    });
    expect(increase.slice(0, 10)).toBe("0x39509351");
    expect(all.slice(0, 10)).toBe("0xa22cb465");
    for (const data of [approve, increase, all])
      expect(argsOf(callTo(data))).toEqual({ recipients: [], amounts: [], spenders: [spender] });
  });

  it("an address word with its high bytes set names its low 20 bytes, as the token reads it", () => {
    // ABI coder v1 (solc < 0.8, e.g. older stablecoins) drops the high bytes and pays the low 20; v2 reverts.
    const dirty = `${"1".padEnd(24, "0")}${TO.slice(2)}`;
    expect(argsOf(callTo(raw("0xa9059cbb", dirty, word("5"))))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 5n }],
      spenders: [],
    });
    expect(argsOf(callTo(raw("0x095ea7b3", dirty, word("5"))))).toEqual({
      recipients: [],
      amounts: [],
      spenders: [to],
    });
  });

  it("a missing or cut word gives no address and no amount; bytes after the arguments are ignored", () => {
    // Only the recipient's word: no amount is read (not 0).
    expect(argsOf(callTo(raw("0xa9059cbb", word(TO.slice(2)))))).toEqual({
      recipients: [to],
      amounts: [],
      spenders: [],
    });
    // A word cut short is neither an address nor an amount.
    expect(argsOf(callTo(raw("0xa9059cbb", word(TO.slice(2)).slice(0, 60))))).toEqual(nothing);
    expect(argsOf(callTo(raw("0xa9059cbb", word(TO.slice(2)), word("5").slice(0, 62))))).toEqual({
      recipients: [to],
      amounts: [],
      spenders: [],
    });
    // Bytes after the arguments: ignored by the token, and by the reader.
    expect(argsOf(callTo(raw("0xa9059cbb", word(TO.slice(2)), word("5"), "00ff")))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 5n }],
      spenders: [],
    });
    // The third word read as an address: words are 64 digits from the selector on.
    expect(argsOf(callTo(raw("0x23b872dd", word("1"), word(TO.slice(2)), word("ff"))))).toEqual({
      recipients: [to],
      amounts: [{ token, amount: 255n }],
      spenders: [],
    });
  });

  it("other selectors, a bare selector and data shorter than one are read as nothing", () => {
    const other = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [TO] });
    expect(argsOf(callTo(other))).toEqual(nothing);
    expect(argsOf(callTo("0xa9059cbb"))).toEqual(nothing);
    expect(argsOf(callTo("0x095ea7b3"))).toEqual(nothing);
    expect(argsOf(callTo("0xa9059c"))).toEqual(nothing);
    expect(argsOf(callTo("0x"))).toEqual(nothing);
  });
});
