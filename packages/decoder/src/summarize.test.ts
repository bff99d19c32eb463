import { encodeFunctionData, erc20Abi, erc721Abi, getAddress, type Hex, maxUint256, parseEther } from "viem";
import { createSiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { accountCallsAbi } from "./abis";
import { decodeAuthorization } from "./decodeAuthorization";
import { decodeMessage } from "./decodeMessage";
import { decodeTransaction } from "./decodeTransaction";
import { decodeTypedData } from "./decodeTypedData";
import { decodeUserOperation } from "./decodeUserOperation";
import { summarize } from "./summarize";
import type { TokenInfoReader } from "./types";

const ALICE = getAddress("0xa11ce00000000000000000000000000000000001");
const BOB = getAddress("0x123400000000000000000000000000000000abcd");
const USDC = getAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const APES = getAddress("0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d");
const ROUTER = getAddress("0x3fc91a3afd70395cd496c647d5a6cc9d4b2b7fad");
const ZERO = getAddress("0x0000000000000000000000000000000000000000");

const tokens: TokenInfoReader = {
  read: async (chainId, address) =>
    address === USDC
      ? { chainId, address, symbol: "USDC", decimals: 6, standard: "erc20" }
      : address === APES
        ? { chainId, address, symbol: "BAYC", standard: "erc721" }
        : { chainId, address },
};
const erc20 = (functionName: "transfer" | "approve", args: readonly [Hex, bigint]) =>
  encodeFunctionData({ abi: erc20Abi, functionName, args });

describe("summarize", () => {
  it("an ERC-20 transfer, in every shipped language", async () => {
    const decoded = await decodeTransaction(
      { chainId: 1, from: ALICE, to: USDC, data: erc20("transfer", [BOB, 1_234_500_000n]) },
      { tokens },
    );
    expect(
      ["en", "de", "fr", "es"].map(
        (locale) => summarize(decoded, { locale: locale as never }).lines[0]?.text,
      ),
    ).toMatchInlineSnapshot(`
        [
          "Send 1,234.5 USDC to 0x1234…ABCd",
          "1.234,5 USDC an 0x1234…ABCd senden",
          "Envoyer 1 234,5 USDC à 0x1234…ABCd",
          "Enviar 1.234,5 USDC a 0x1234…ABCd",
        ]
      `);
  });

  it("an unlimited approval to a named spender, with its warning", async () => {
    const decoded = await decodeTransaction(
      { chainId: 8453, from: ALICE, to: USDC, data: erc20("approve", [ROUTER, maxUint256]) },
      { tokens },
    );
    expect(summarize(decoded, { names: [{ address: ROUTER, name: "Uniswap" }] })).toMatchInlineSnapshot(`
      {
        "lines": [
          {
            "depth": 0,
            "text": "Allow Uniswap (0x3fC9…7FAD) to spend UNLIMITED USDC",
          },
        ],
        "text": "Transaction on Base
        Allow Uniswap (0x3fC9…7FAD) to spend UNLIMITED USDC
      ! Uniswap (0x3fC9…7FAD) could spend all of your USDC, now and later.",
        "title": "Transaction on Base",
        "warnings": [
          "Uniswap (0x3fC9…7FAD) could spend all of your USDC, now and later.",
        ],
      }
    `);
  });

  it("a user operation: calls, nested calls, unknown calls, an NFT and a transfer to the zero address", async () => {
    const OTHER = getAddress("0x07e4000000000000000000000000000000000002");
    const inner = encodeFunctionData({
      abi: accountCallsAbi,
      functionName: "execute",
      args: [BOB, parseEther("0.5"), "0x"],
    });
    const decoded = await decodeUserOperation(
      {
        chainId: 31337,
        sender: ALICE,
        callData: encodeFunctionData({
          abi: accountCallsAbi,
          functionName: "executeBatch",
          args: [
            [
              {
                target: APES,
                value: 0n,
                data: encodeFunctionData({
                  abi: erc721Abi,
                  functionName: "setApprovalForAll",
                  args: [ROUTER, true],
                }),
              },
              {
                target: APES,
                value: 0n,
                data: encodeFunctionData({
                  abi: erc721Abi,
                  functionName: "transferFrom",
                  args: [ALICE, BOB, 42n],
                }),
              },
              { target: OTHER, value: 0n, data: inner },
              { target: BOB, value: 1n, data: "0x12345678" },
              { target: USDC, value: 0n, data: erc20("transfer", [ZERO, 1n]) },
            ],
          ],
        }),
      },
      { tokens },
    );
    expect(summarize(decoded).text).toMatchInlineSnapshot(`
      "Smart account operation on chain 31337
        Allow 0x3fC9…7FAD to move ALL your BAYC tokens
        Move BAYC #42 from 0xa11c…0001 to 0x1234…ABCd
        Through the account 0x07E4…0002:
          Send 0.5 ETH to 0x1234…ABCd
        A call to 0x1234…ABCd (function 0x12345678), sending 0.000000000000000001 ETH
        Send 0.000001 USDC to 0x0000…0000
      ! 0x3fC9…7FAD could move every BAYC token you own.
      ! Tokens sent to the zero address are lost."
    `);
  });

  it("without metadata: raw units, neutral wording; the app's token list fills in", async () => {
    const decoded = await decodeTransaction({
      chainId: 1,
      from: ALICE,
      to: USDC,
      data: erc20("approve", [ROUTER, 5n]),
    });
    expect(summarize(decoded).lines[0]?.text).toBe(
      "Allow 0x3fC9…7FAD to use 0xA0b8…eB48 (amount or token ID 5)",
    );
    const transfer = await decodeTransaction({
      chainId: 1,
      from: ALICE,
      to: USDC,
      data: erc20("transfer", [BOB, 5n]),
    });
    expect(summarize(transfer).lines[0]?.text).toBe("Send 5 units of 0xA0b8…eB48 to 0x1234…ABCd");
    expect(
      summarize(transfer, { tokens: [{ chainId: 1, address: USDC, symbol: "USDC", decimals: 6 }] }).lines[0]
        ?.text,
    ).toBe("Send 0.000005 USDC to 0x1234…ABCd");
  });

  it("a permit, an authorization, a SIWE message, a message and typed data", async () => {
    const permit = await decodeTypedData(
      {
        domain: {
          name: "Permit2",
          chainId: 1,
          verifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
        },
        types: {
          PermitTransferFrom: [
            { name: "permitted", type: "TokenPermissions" },
            { name: "spender", type: "address" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
          TokenPermissions: [
            { name: "token", type: "address" },
            { name: "amount", type: "uint256" },
          ],
        },
        primaryType: "PermitTransferFrom",
        message: {
          permitted: { token: USDC, amount: 2_500_000n },
          spender: ROUTER,
          nonce: 1n,
          deadline: 1_900_000_000n,
        },
      },
      { tokens, knownSpenders: [] },
    );
    const siwe = createSiweMessage({
      domain: "shop.example.com",
      address: ALICE,
      uri: "https://shop.example.com",
      version: "1",
      chainId: 1,
      nonce: "abcdef123456",
      issuedAt: new Date("2026-12-07T10:00:00Z"),
      expirationTime: new Date("2026-12-07T11:00:00Z"),
    });
    const texts = [
      summarize(permit),
      summarize(decodeAuthorization({ chainId: 0, address: ROUTER, nonce: 0 }, { allowedDelegates: [] })),
      summarize(
        decodeAuthorization(
          { chainId: 1, address: ROUTER, nonce: 0 },
          { allowedDelegates: [{ address: ROUTER, name: "Simple7702Account" }] },
        ),
      ),
      summarize(decodeMessage(siwe)),
      summarize(decodeMessage("gm")),
      summarize(
        await decodeTypedData({
          domain: { name: "Mail" },
          types: { Mail: [{ name: "contents", type: "string" }] },
          primaryType: "Mail",
          message: { contents: "hello" },
        }),
      ),
    ].map((s) => s.text);
    expect(texts).toMatchInlineSnapshot(`
      [
        "Sign PermitTransferFrom for Permit2
        Permit 0x3fC9…7FAD to transfer 2.5 USDC once until 2030-03-17 17:46 UTC
      ! The permit is for 0x3fC9…7FAD, which this app does not know.",
        "Account delegation on every chain
        Let 0x3fC9…7FAD run your account's code
      ! 0x3fC9…7FAD is not an allowed delegate: it could do anything with your account.",
        "Account delegation on Ethereum
        Let Simple7702Account (0x3fC9…7FAD) run your account's code",
        "Sign in to shop.example.com
        Sign in to shop.example.com as 0xa11c…0001
        For https://shop.example.com
        On Ethereum
        Expires 2026-12-07 11:00 UTC",
        "Sign a message
        gm",
        "Sign Mail for Mail
        contents: hello",
      ]
    `);
  });

  it("a Solana transaction", () => {
    const decoded = {
      kind: "solanaTransaction",
      version: 0,
      feePayer: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi",
      actions: [
        {
          kind: "solTransfer",
          from: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi",
          to: "8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh",
          lamports: 1_500_000_000n,
        },
        {
          kind: "splTransfer",
          program: "token",
          source: null,
          destination: "8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh",
          authority: null,
          amount: 2_500_000n,
          mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
          decimals: 6,
        },
        {
          kind: "splTransfer",
          program: "token2022",
          source: null,
          destination: null,
          authority: null,
          amount: 7n,
        },
        {
          kind: "splApprove",
          program: "token",
          source: null,
          delegate: "8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh",
          amount: 2n ** 64n - 1n,
          unlimited: true,
        },
        {
          kind: "splCloseAccount",
          program: "token",
          account: "8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh",
          destination: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi",
        },
        { kind: "unknownInstruction", programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" },
      ],
      warnings: [{ kind: "valueAboveThreshold", value: 1_500_000_000n, threshold: 10n ** 9n }],
    } as const;
    expect(summarize(decoded as never, { tokens: [] }).text).toMatchInlineSnapshot(`
      "Solana transaction
        Send 1.5 SOL to 8opH…ScKh
        Send 2.5 EPjF…Dt1v to the token account 8opH…ScKh
        Send 7 tokens to the token account an address from a lookup table
        Allow 8opH…ScKh to spend UNLIMITED tokens
        Close the token account 8opH…ScKh, its SOL going to 4vJ9…kLKi
        An instruction of the program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr
      ! This sends 1.5 SOL, more than 1 SOL."
    `);
  });

  it("an unreadable request says why, in the locale", async () => {
    const decoded = await decodeTransaction({ chainId: 1, from: "nope" } as never);
    expect(summarize(decoded).text).toBe(
      "Unreadable request\n  This request could not be read: the transaction is malformed.",
    );
    expect(summarize(decoded, { locale: "de" }).title).toBe("Nicht lesbare Anfrage");
  });

  it("text the request brings cannot reorder or hide what is read", async () => {
    const typedData = await decodeTypedData({
      domain: { name: "Shop\u202e" },
      types: { Order: [{ name: "note", type: "string" }] },
      primaryType: "Order",
      message: { note: "pay\u200b 1\nETH" },
    });
    expect(summarize(typedData).lines[0]?.text).toBe("note: pay\ufffd 1\ufffdETH");
    expect(summarize(typedData).title).toBe("Sign Order for Shop\ufffd");
    expect(summarize(decodeMessage("line 1\nline\u202e 2")).lines[0]?.text).toBe("line 1\nline\ufffd 2");
  });

  it("every shipped language has every text", async () => {
    const { locales } = await import("./summarize");
    const keys = Object.keys(locales.en).sort();
    for (const texts of Object.values(locales)) expect(Object.keys(texts).sort()).toEqual(keys);
  });
});
