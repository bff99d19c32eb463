import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  erc721Abi,
  getAddress,
  maxUint256,
  parseAbi,
  toFunctionSelector,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it, vi } from "vitest";
import { ACCOUNT_CALL_SELECTORS, accountCallsAbi } from "./abis";
import { MAX_TOKEN_READS } from "./decodeCall";
import { decodeTransaction } from "./decodeTransaction";
import type { TokenInfo, TokenInfoReader } from "./types";

const ALICE = getAddress("0xa11ce00000000000000000000000000000000001");
const BOB = getAddress("0xb0b0000000000000000000000000000000000002");
const USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" as Address;
const NFT = "0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D" as Address;
const MULTI = getAddress("0x76be3b62873462d2142405439777e971754e8e77");
const SPENDER = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as Address;
const ZERO = "0x0000000000000000000000000000000000000000" as Address;

const erc1155Abi = parseAbi([
  "function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)",
  "function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)",
  "function setApprovalForAll(address operator, bool approved)",
]);
const allowanceAbi = parseAbi(["function increaseAllowance(address spender, uint256 addedValue)"]);

/** A reader that knows USDC as ERC-20 and NFT as ERC-721, and nothing else. */
const tokens: TokenInfoReader = {
  read: async (chainId, address) => {
    const known: Record<string, Omit<TokenInfo, "chainId" | "address">> = {
      [USDC.toLowerCase()]: { symbol: "USDC", name: "USD Coin", decimals: 6, standard: "erc20" },
      [NFT.toLowerCase()]: { symbol: "BAYC", name: "BoredApeYachtClub", standard: "erc721" },
    };
    return { chainId, address, ...known[address.toLowerCase()] };
  },
};

const tx = (to: Address | null, data: `0x${string}` = "0x", value = 0n) => ({
  chainId: 1,
  from: ALICE,
  to,
  data,
  value,
});
const call = (abi: readonly unknown[], functionName: string, args: readonly unknown[]) =>
  encodeFunctionData({ abi, functionName, args } as never);

describe("decodeTransaction", () => {
  it("account call selectors are execute and executeBatch", () => {
    expect(accountCallsAbi.map((f) => toFunctionSelector(f))).toEqual(ACCOUNT_CALL_SELECTORS);
  });

  it.each([
    [
      "a native transfer",
      tx(BOB, "0x", 10n ** 18n),
      [{ kind: "nativeTransfer", to: BOB, value: 10n ** 18n }],
    ],
    ["a contract creation", tx(null, "0x6080", 5n), [{ kind: "contractCreation", value: 5n }]],
    [
      "an ERC-20 transfer",
      tx(USDC, call(erc20Abi, "transfer", [BOB, 1_500_000n])),
      [
        {
          kind: "erc20Transfer",
          token: { address: USDC, symbol: "USDC", name: "USD Coin", decimals: 6 },
          to: BOB,
          amount: 1_500_000n,
        },
      ],
    ],
    [
      "an ERC-20 transferFrom (decimals answered)",
      tx(USDC, call(erc20Abi, "transferFrom", [BOB, ALICE, 7n])),
      [{ kind: "erc20Transfer", from: BOB, to: ALICE, amount: 7n }],
    ],
    [
      "an unlimited ERC-20 approve",
      tx(USDC, call(erc20Abi, "approve", [SPENDER, maxUint256])),
      [{ kind: "erc20Approve", spender: SPENDER, amount: maxUint256, unlimited: true }],
    ],
    [
      "an approve from 2^255 up is unlimited",
      tx(USDC, call(erc20Abi, "approve", [SPENDER, 2n ** 255n])),
      [{ kind: "erc20Approve", unlimited: true }],
    ],
    [
      "an approve just below 2^255 is not",
      tx(USDC, call(erc20Abi, "approve", [SPENDER, 2n ** 255n - 1n])),
      [{ kind: "erc20Approve", unlimited: false }],
    ],
    [
      "increaseAllowance",
      tx(USDC, call(allowanceAbi, "increaseAllowance", [SPENDER, 5n])),
      [{ kind: "erc20IncreaseAllowance", spender: SPENDER, amount: 5n, unlimited: false }],
    ],
    [
      "an ERC-721 transferFrom (ERC-165 answered)",
      tx(NFT, call(erc721Abi, "transferFrom", [ALICE, BOB, 42n])),
      [{ kind: "erc721Transfer", from: ALICE, to: BOB, tokenId: 42n, safe: false }],
    ],
    [
      "an ERC-721 safeTransferFrom",
      tx(NFT, call(erc721Abi, "safeTransferFrom", [ALICE, BOB, 42n])),
      [{ kind: "erc721Transfer", tokenId: 42n, safe: true }],
    ],
    [
      "an ERC-721 safeTransferFrom with data",
      tx(NFT, call(erc721Abi, "safeTransferFrom", [ALICE, BOB, 42n, "0x1234"])),
      [{ kind: "erc721Transfer", tokenId: 42n, safe: true }],
    ],
    [
      "an ERC-721 approve",
      tx(NFT, call(erc721Abi, "approve", [SPENDER, 42n])),
      [{ kind: "erc721Approve", spender: SPENDER, tokenId: 42n }],
    ],
    [
      "setApprovalForAll",
      tx(NFT, call(erc721Abi, "setApprovalForAll", [SPENDER, true])),
      [{ kind: "operatorApproval", operator: SPENDER, approved: true }],
    ],
    [
      "an ERC-1155 safeTransferFrom",
      tx(MULTI, call(erc1155Abi, "safeTransferFrom", [ALICE, BOB, 3n, 10n, "0x"])),
      [{ kind: "erc1155Transfer", from: ALICE, to: BOB, ids: [3n], amounts: [10n], batch: false }],
    ],
    [
      "an ERC-1155 safeBatchTransferFrom",
      tx(MULTI, call(erc1155Abi, "safeBatchTransferFrom", [ALICE, BOB, [1n, 2n], [5n, 6n], "0x"])),
      [{ kind: "erc1155Transfer", ids: [1n, 2n], amounts: [5n, 6n], batch: true }],
    ],
    [
      "transferFrom on a contract of unknown standard",
      tx(MULTI, call(erc20Abi, "transferFrom", [ALICE, BOB, 9n])),
      [{ kind: "tokenTransferFrom", token: { address: MULTI }, from: ALICE, to: BOB, value: 9n }],
    ],
    [
      "approve on a contract of unknown standard",
      tx(MULTI, call(erc20Abi, "approve", [SPENDER, maxUint256])),
      [{ kind: "tokenApprove", spender: SPENDER, value: maxUint256, unlimited: true }],
    ],
    [
      "an unknown call",
      tx(BOB, "0x12345678abcd", 3n),
      [{ kind: "unknownCall", to: BOB, selector: "0x12345678", value: 3n }],
    ],
    ["data shorter than a selector", tx(BOB, "0x1234"), [{ kind: "unknownCall", to: BOB, selector: null }]],
    [
      "a known selector with undecodable arguments",
      tx(USDC, "0xa9059cbb0000"),
      [{ kind: "unknownCall", to: USDC, selector: "0xa9059cbb" }],
    ],
    [
      "a token call that sends value too",
      tx(USDC, call(erc20Abi, "transfer", [BOB, 1n]), 2n),
      [
        { kind: "nativeTransfer", to: USDC, value: 2n },
        { kind: "erc20Transfer", amount: 1n },
      ],
    ],
  ])("%s", async (_, transaction, actions) => {
    const decoded = await decodeTransaction(transaction, { tokens });
    expect(decoded.kind).toBe("transaction");
    expect(decoded.kind === "transaction" && decoded.actions).toMatchObject(actions);
  });

  it("without a reader, amounts stay raw and shared selectors stay neutral", async () => {
    const decoded = await decodeTransaction(tx(USDC, call(erc20Abi, "transferFrom", [ALICE, BOB, 9n])));
    expect(decoded).toMatchObject({ actions: [{ kind: "tokenTransferFrom", token: { address: USDC } }] });
    expect(decoded.kind === "transaction" && decoded.actions[0]).not.toHaveProperty("token.decimals");
  });

  it("a reader that fails is as no reader", async () => {
    const failing: TokenInfoReader = { read: () => Promise.reject(new Error("node down")) };
    const decoded = await decodeTransaction(tx(USDC, call(erc20Abi, "approve", [SPENDER, 1n])), {
      tokens: failing,
    });
    expect(decoded).toMatchObject({ actions: [{ kind: "tokenApprove", value: 1n, unlimited: false }] });
  });

  it("a 7702-delegated account calling itself: each call its executeBatch runs", async () => {
    const data = encodeFunctionData({
      abi: accountCallsAbi,
      functionName: "executeBatch",
      args: [
        [
          { target: USDC, value: 0n, data: call(erc20Abi, "approve", [SPENDER, maxUint256]) },
          { target: BOB, value: 1n, data: "0x" },
        ],
      ],
    });
    const decoded = await decodeTransaction(tx(ALICE, data), { tokens });
    expect(decoded).toMatchObject({
      kind: "transaction",
      actions: [
        { kind: "erc20Approve", unlimited: true },
        { kind: "nativeTransfer", to: BOB, value: 1n },
      ],
      warnings: [{ kind: "unlimitedApproval", token: USDC, spender: SPENDER }],
    });
  });

  it(`reads at most ${MAX_TOKEN_READS} tokens for one request, each once`, async () => {
    const read = vi.fn(tokens.read);
    const targets = [
      USDC,
      USDC,
      ...Array.from({ length: 40 }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, "0")}`)),
    ];
    const data = encodeFunctionData({
      abi: accountCallsAbi,
      functionName: "executeBatch",
      args: [targets.map((target) => ({ target, value: 0n, data: call(erc20Abi, "transfer", [BOB, 1n]) }))],
    });
    const decoded = await decodeTransaction(tx(ALICE, data), { tokens: { read } });
    expect(read).toHaveBeenCalledTimes(MAX_TOKEN_READS);
    expect(decoded).toMatchObject({
      actions: { length: 42, 0: { token: { symbol: "USDC" } }, 1: { token: { symbol: "USDC" } } },
    });
  });

  it("carries its EIP-7702 authorizations, signed by viem", async () => {
    const account = privateKeyToAccount(`0x${"11".repeat(32)}`);
    const authorization = await account.signAuthorization({ address: SPENDER, chainId: 1, nonce: 3 });
    const decoded = await decodeTransaction(
      { ...tx(account.address, "0x"), from: account.address, authorizationList: [authorization] },
      { allowedDelegates: [BOB] },
    );
    expect(decoded).toMatchObject({
      authorizations: [{ kind: "authorization", chainId: 1, delegate: SPENDER, nonce: 3n, revoke: false }],
      warnings: [{ kind: "delegationNotAllowed", delegate: SPENDER }],
    });
  });

  it.each([
    [
      "an unlimited approval",
      tx(USDC, call(erc20Abi, "approve", [SPENDER, maxUint256])),
      { kind: "unlimitedApproval" },
    ],
    [
      "an operator approval",
      tx(NFT, call(erc721Abi, "setApprovalForAll", [SPENDER, true])),
      { kind: "operatorApproval" },
    ],
    [
      "a transfer to the zero address",
      tx(USDC, call(erc20Abi, "transfer", [ZERO, 1n])),
      { kind: "transferToZeroAddress", token: USDC },
    ],
    ["native value to the zero address", tx(ZERO, "0x", 1n), { kind: "transferToZeroAddress" }],
    [
      "value above the threshold",
      tx(BOB, "0x", 11n),
      { kind: "valueAboveThreshold", value: 11n, threshold: 10n },
    ],
  ])("warns of %s", async (_, transaction, warning) => {
    const decoded = await decodeTransaction(transaction, { tokens, valueThreshold: 10n });
    expect(decoded.warnings).toEqual([expect.objectContaining(warning)]);
  });

  it("raises no warning for a revoke, an operator revoke or value at the threshold", async () => {
    for (const t of [
      tx(USDC, call(erc20Abi, "approve", [SPENDER, 0n])),
      tx(NFT, call(erc721Abi, "setApprovalForAll", [SPENDER, false])),
      tx(BOB, "0x", 10n),
    ])
      expect((await decodeTransaction(t, { tokens, valueThreshold: 10n })).warnings).toEqual([]);
  });

  it.each([
    ["a bad from", { ...tx(BOB), from: "0x1234" }],
    ["a bad to", { ...tx(BOB), to: "not an address" }],
    ["odd hex data", tx(BOB, "0x123")],
    ["non-hex data", { ...tx(BOB), data: "hello" }],
    ["a negative chain id", { ...tx(BOB), chainId: -1 }],
    ["an unsafe chain id", { ...tx(BOB), chainId: 2n ** 64n }],
    ["a fractional value", { ...tx(BOB), value: 1.5 }],
    ["a bad authorization", { ...tx(BOB), authorizationList: [{ chainId: 1, address: "0x00", nonce: 0 }] }],
    ["null", null],
    ["a string", "0xdeadbeef"],
  ])("never throws: %s is unreadable", async (_, transaction) => {
    const decoded = await decodeTransaction(transaction as never);
    expect(decoded).toMatchObject({ kind: "unreadable", reason: "malformedTransaction", warnings: [] });
  });

  it("reads arguments that are not canonical ABI no worse than viem (a too-long array length)", async () => {
    const data =
      `0x34fcd5be${encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [32n, 2n ** 64n]).slice(2)}` as const;
    expect(await decodeTransaction(tx(BOB, data))).toMatchObject({
      actions: [{ kind: "unknownCall", to: BOB, selector: "0x34fcd5be" }],
    });
  });
});
