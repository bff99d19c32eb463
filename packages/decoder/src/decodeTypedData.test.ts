import { getAddress, hashTypedData, maxUint160, maxUint256, type TypedDataDefinition } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { decodeTypedData } from "./decodeTypedData";
import type { TokenInfoReader } from "./types";

const OWNER = getAddress("0x0e0e000000000000000000000000000000000001");
const SPENDER = getAddress("0x3fc91a3afd70395cd496c647d5a6cc9d4b2b7fad"); // Universal Router
const STRANGER = getAddress("0x5172000000000000000000000000000000000002");
const USDC = getAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const DAI = getAddress("0x6b175474e89094c44da98b954eedeac495271d0f");
const WETH = getAddress("0xc02aaa39b223fe8d0a0e5c4f27ead083c756cc2c");
const NFT = getAddress("0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d");
const PERMIT2 = getAddress("0x000000000022d473030f116ddee9f6b43ac78ba3");
const DEADLINE = 1_900_000_000n;

const tokens: TokenInfoReader = {
  read: async (chainId, address) =>
    address === USDC
      ? { chainId, address, symbol: "USDC", decimals: 6, standard: "erc20" }
      : { chainId, address },
};

// Each shape as the contracts and Uniswap's permit2-sdk define it.
const eip2612 = {
  domain: { name: "USD Coin", version: "2", chainId: 1, verifyingContract: USDC },
  types: {
    Permit: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
      { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  message: { owner: OWNER, spender: SPENDER, value: maxUint256, nonce: 0n, deadline: DEADLINE },
} as const;
const daiPermit = {
  domain: { name: "Dai Stablecoin", version: "1", chainId: 1, verifyingContract: DAI },
  types: {
    Permit: [
      { name: "holder", type: "address" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "expiry", type: "uint256" },
      { name: "allowed", type: "bool" },
    ],
  },
  primaryType: "Permit",
  message: { holder: OWNER, spender: SPENDER, nonce: 0n, expiry: 0n, allowed: true },
} as const;
const erc4494 = {
  domain: { name: "Apes", version: "1", chainId: 1, verifyingContract: NFT },
  types: {
    Permit: [
      { name: "spender", type: "address" },
      { name: "tokenId", type: "uint256" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  message: { spender: SPENDER, tokenId: 42n, nonce: 0n, deadline: DEADLINE },
} as const;
const permit2Domain = { name: "Permit2", chainId: 1, verifyingContract: PERMIT2 } as const;
const PermitDetails = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint160" },
  { name: "expiration", type: "uint48" },
  { name: "nonce", type: "uint48" },
] as const;
const TokenPermissions = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint256" },
] as const;
const permitSingle = {
  domain: permit2Domain,
  types: {
    PermitSingle: [
      { name: "details", type: "PermitDetails" },
      { name: "spender", type: "address" },
      { name: "sigDeadline", type: "uint256" },
    ],
    PermitDetails,
  },
  primaryType: "PermitSingle",
  message: {
    details: { token: USDC, amount: maxUint160, expiration: Number(DEADLINE), nonce: 0 },
    spender: SPENDER,
    sigDeadline: DEADLINE,
  },
} as const;
const permitBatch = {
  domain: permit2Domain,
  types: {
    PermitBatch: [
      { name: "details", type: "PermitDetails[]" },
      { name: "spender", type: "address" },
      { name: "sigDeadline", type: "uint256" },
    ],
    PermitDetails,
  },
  primaryType: "PermitBatch",
  message: {
    details: [
      { token: USDC, amount: 1_000_000n, expiration: Number(DEADLINE), nonce: 0 },
      { token: WETH, amount: 5n, expiration: 0, nonce: 1 },
    ],
    spender: SPENDER,
    sigDeadline: DEADLINE,
  },
} as const;
const permitTransferFrom = {
  domain: permit2Domain,
  types: {
    PermitTransferFrom: [
      { name: "permitted", type: "TokenPermissions" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
    TokenPermissions,
  },
  primaryType: "PermitTransferFrom",
  message: {
    permitted: { token: USDC, amount: 2_500_000n },
    spender: SPENDER,
    nonce: 7n,
    deadline: DEADLINE,
  },
} as const;
const permitBatchWitness = {
  domain: permit2Domain,
  types: {
    PermitBatchWitnessTransferFrom: [
      { name: "permitted", type: "TokenPermissions[]" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
      { name: "witness", type: "ExampleWitness" },
    ],
    ExampleWitness: [{ name: "user", type: "address" }],
    TokenPermissions,
  },
  primaryType: "PermitBatchWitnessTransferFrom",
  message: {
    permitted: [
      { token: USDC, amount: 1n },
      { token: WETH, amount: maxUint256 },
    ],
    spender: SPENDER,
    nonce: 8n,
    deadline: DEADLINE,
    witness: { user: OWNER },
  },
} as const;

describe("decodeTypedData", () => {
  it("every fixture is valid EIP-712 that viem hashes and signs", async () => {
    const account = privateKeyToAccount(`0x${"22".repeat(32)}`);
    for (const t of [
      eip2612,
      daiPermit,
      erc4494,
      permitSingle,
      permitBatch,
      permitTransferFrom,
      permitBatchWitness,
    ]) {
      expect(hashTypedData(t as TypedDataDefinition)).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await account.signTypedData(t as TypedDataDefinition)).toMatch(/^0x[0-9a-f]{130}$/);
    }
  });

  it.each([
    [
      "EIP-2612, unlimited",
      eip2612,
      [
        {
          kind: "permit",
          standard: "erc2612",
          token: { address: USDC, symbol: "USDC" },
          spender: SPENDER,
          amount: maxUint256,
          unlimited: true,
          deadline: DEADLINE,
        },
      ],
    ],
    [
      "DAI (allowed: all, no expiry)",
      daiPermit,
      [{ kind: "permit", standard: "dai", token: { address: DAI }, amount: maxUint256, unlimited: true }],
    ],
    [
      "EIP-4494",
      erc4494,
      [
        {
          kind: "permit",
          standard: "erc4494",
          token: { address: NFT },
          amount: 42n,
          unlimited: false,
          deadline: DEADLINE,
        },
      ],
    ],
    [
      "Permit2 PermitSingle of max uint160",
      permitSingle,
      [
        {
          kind: "permit",
          standard: "permit2",
          token: { address: USDC },
          amount: maxUint160,
          unlimited: true,
          deadline: DEADLINE,
        },
      ],
    ],
    [
      "Permit2 PermitBatch",
      permitBatch,
      [
        {
          kind: "permit",
          standard: "permit2",
          token: { address: USDC, decimals: 6 },
          amount: 1_000_000n,
          unlimited: false,
          deadline: DEADLINE,
        },
        { kind: "permit", standard: "permit2", token: { address: WETH }, amount: 5n, unlimited: false },
      ],
    ],
    [
      "Permit2 PermitTransferFrom",
      permitTransferFrom,
      [{ kind: "permit", standard: "permit2Transfer", amount: 2_500_000n, deadline: DEADLINE }],
    ],
    [
      "Permit2 PermitBatchWitnessTransferFrom",
      permitBatchWitness,
      [
        {
          kind: "permit",
          standard: "permit2Transfer",
          token: { address: USDC },
          amount: 1n,
          unlimited: false,
        },
        {
          kind: "permit",
          standard: "permit2Transfer",
          token: { address: WETH },
          amount: maxUint256,
          unlimited: true,
        },
      ],
    ],
  ])("%s", async (_, typedData, actions) => {
    const decoded = await decodeTypedData(typedData as never, { tokens });
    expect(decoded).toMatchObject({
      kind: "typedData",
      chainId: 1,
      primaryType: typedData.primaryType,
      actions,
      fields: [],
    });
    expect(decoded.kind === "typedData" && decoded.actions).toHaveLength(actions.length);
  });

  it("flags unlimited permits, and permits to a spender the app does not know", async () => {
    expect((await decodeTypedData(eip2612 as never, { knownSpenders: [SPENDER] })).warnings).toEqual([
      { kind: "unlimitedApproval", token: USDC, spender: SPENDER },
    ]);
    expect(
      (
        await decodeTypedData(permitTransferFrom as never, {
          knownSpenders: [{ address: STRANGER, name: "x" }],
        })
      ).warnings,
    ).toEqual([{ kind: "permitToUnknownSpender", token: USDC, spender: SPENDER }]);
  });

  it("reads values as JSON carries them (eth_signTypedData_v4: decimal and hex strings)", async () => {
    const json = JSON.parse(JSON.stringify(eip2612, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
    json.message.nonce = "0x0";
    expect(await decodeTypedData(json)).toMatchObject({ actions: [{ amount: maxUint256, unlimited: true }] });
  });

  const [owner, spender, value, nonce, deadline] = eip2612.types.Permit;
  it.each([
    ["a renamed field", [owner, spender, { name: "amount", type: "uint256" }, nonce, deadline]],
    ["reordered fields", [spender, owner, value, nonce, deadline]],
    ["an extra field", [owner, spender, value, nonce, deadline, { name: "memo", type: "string" }]],
  ])("only canonical types are a permit: %s is plain typed data", async (_, Permit) => {
    const decoded = await decodeTypedData({ ...eip2612, types: { Permit } } as never);
    expect(decoded).toMatchObject({ kind: "typedData", actions: [], warnings: [] });
  });

  it("other typed data: domain, primary type and top-level fields", async () => {
    const decoded = await decodeTypedData({
      domain: { name: "Seaport", version: "1.6", chainId: 10, verifyingContract: STRANGER.toLowerCase() },
      types: {
        Order: [
          { name: "offerer", type: "address" },
          { name: "zone", type: "address" },
          { name: "offer", type: "OfferItem[]" },
          { name: "salt", type: "uint256" },
          { name: "note", type: "string" },
          { name: "signed", type: "bool" },
          { name: "extra", type: "Extra" },
        ],
        OfferItem: [{ name: "token", type: "address" }],
        Extra: [{ name: "a", type: "uint8" }],
      },
      primaryType: "Order",
      message: {
        offerer: OWNER.toLowerCase(),
        zone: STRANGER,
        offer: [{ token: USDC }, { token: WETH }],
        salt: 12345n,
        note: "x".repeat(300),
        signed: true,
        extra: { a: 1 },
      },
    });
    expect(decoded).toEqual({
      kind: "typedData",
      chainId: 10,
      primaryType: "Order",
      domain: { name: "Seaport", version: "1.6", verifyingContract: STRANGER },
      actions: [],
      fields: [
        { name: "offerer", type: "address", value: OWNER },
        { name: "zone", type: "address", value: STRANGER },
        { name: "offer", type: "OfferItem[]", value: "[2 items]" },
        { name: "salt", type: "uint256", value: "12345" },
        { name: "note", type: "string", value: `${"x".repeat(199)}…` },
        { name: "signed", type: "bool", value: "true" },
        { name: "extra", type: "Extra", value: "{…}" },
      ],
      warnings: [],
    });
  });

  const userOperationTypes = {
    PackedUserOperation: [
      { name: "sender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "initCode", type: "bytes" },
      { name: "callData", type: "bytes" },
      { name: "accountGasLimits", type: "bytes32" },
      { name: "preVerificationGas", type: "uint256" },
      { name: "gasFees", type: "bytes32" },
      { name: "paymasterAndData", type: "bytes" },
    ],
  };
  it.each([
    ["no types", { primaryType: "Permit", message: {} }, "malformedTypedData"],
    ["a message that is a string", { types: {}, primaryType: "X", message: "hi" }, "malformedTypedData"],
    [
      "a permit with a bad spender",
      { ...eip2612, message: { ...eip2612.message, spender: "0x1" } },
      "malformedTypedData",
    ],
    [
      "a permit value that is a word",
      { ...eip2612, message: { ...eip2612.message, value: "lots" } },
      "malformedTypedData",
    ],
    [
      "Permit2 details that are not objects",
      { ...permitBatch, message: { ...permitBatch.message, details: [1, 2] } },
      "malformedTypedData",
    ],
    [
      "a fractional domain chain id",
      { ...eip2612, domain: { ...eip2612.domain, chainId: 1.5 } },
      "malformedTypedData",
    ],
    ["types that are not lists", { ...eip2612, types: { Permit: "address owner" } }, "malformedTypedData"],
    [
      "a user operation without call data",
      {
        domain: {},
        types: userOperationTypes,
        primaryType: "PackedUserOperation",
        message: { sender: OWNER },
      },
      "malformedUserOperation",
    ],
    ["null", null, "malformedTypedData"],
  ])("never throws: %s is unreadable", async (_, typedData, reason) => {
    expect(await decodeTypedData(typedData as never)).toMatchObject({
      kind: "unreadable",
      reason,
      warnings: [],
    });
  });
});
