import { encodeFunctionData, type Hex, parseAbi, type TypedDataDefinition } from "viem";
import { describe, expect, it } from "vitest";
import { simpleAccountCallsAbi } from "../../userOperations/decodeCalls";
import type { SigningRequest } from "./signingRequest";
import { tokenMovesOf } from "./tokenMoves";
import { typedDataRequest } from "./typedDataRequest";

// "abandon … about"'s EOA and its SimpleAccount of salt 0 (ownAccounts.test.ts pins them).
const SIGNER = "0x9858effd232b4033e47d90003d41ec34ecaeda94" as const;
const SIMPLE = "0xf69e5094a3eec379aac1d35d353d8d043df5762f" as const;
const USDC = "0x2222222222222222222222222222222222222222" as const;
const DAI = "0x4444444444444444444444444444444444444444" as const;
const BOB = "0x1111111111111111111111111111111111111111" as const;
const PERMIT2 = "0x000000000022d473030f116ddee9f6b43ac78ba3" as const;
const CAPPED = new Set<string>([USDC]);

const erc20 = parseAbi([
  "function transfer(address,uint256)",
  "function transferFrom(address,address,uint256)",
  "function approve(address,uint256)",
  "function increaseAllowance(address,uint256)",
  "function mint(address,uint256)",
]);
const permit2Abi = parseAbi([
  "function approve(address token,address spender,uint160 amount,uint48 expiration)",
]);
const call = (functionName: "transfer" | "approve" | "increaseAllowance" | "mint", amount: bigint) =>
  encodeFunctionData({ abi: erc20, functionName, args: [BOB, amount] });
const tx = (to: Hex, data: Hex, value = 0n): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to,
  data,
  value,
  signer: SIGNER,
});
const moved = (r: SigningRequest) =>
  tokenMovesOf(r, CAPPED).moves.map((m) => [m.token, m.amount, m.how, m.chainId]);

const fields = (spec: string) =>
  spec.split(",").map((f) => {
    const [type, name] = f.split(" ") as [string, string];
    return { type, name };
  });
const typed = (
  primaryType: string,
  types: Record<string, { name: string; type: string }[]>,
  message: Record<string, unknown>,
  verifyingContract: Hex = USDC,
) =>
  typedDataRequest(
    {
      domain: { chainId: 1, verifyingContract },
      types,
      primaryType,
      message,
    } as unknown as TypedDataDefinition,
    SIGNER,
  );

describe("tokenMovesOf", () => {
  it("counts transfer, transferFrom, approve and increaseAllowance on a token, and native value", () => {
    expect(moved(tx(USDC, call("transfer", 5n)))).toEqual([[USDC, 5n, "transfer", 1]]);
    const from = encodeFunctionData({ abi: erc20, functionName: "transferFrom", args: [SIGNER, BOB, 7n] });
    expect(moved(tx(USDC, from))).toEqual([[USDC, 7n, "transferFrom", 1]]);
    // An approval counts its whole amount, whatever the spender takes later.
    expect(moved(tx(USDC, call("approve", 2n ** 256n - 1n)))).toEqual([
      [USDC, 2n ** 256n - 1n, "approve", 1],
    ]);
    expect(moved(tx(USDC, call("increaseAllowance", 9n)))).toEqual([[USDC, 9n, "increaseAllowance", 1]]);
    expect(moved(tx(BOB, "0x", 3n))).toEqual([["native", 3n, "value", 1]]);
  });

  it("reads a user operation's batch, through the account's executeBatch", () => {
    const batch = encodeFunctionData({
      abi: simpleAccountCallsAbi,
      functionName: "executeBatch",
      args: [
        [
          { target: USDC, value: 0n, data: call("transfer", 4n) },
          { target: USDC, value: 0n, data: call("approve", 6n) },
          { target: BOB, value: 1n, data: "0x" },
        ],
      ],
    });
    const op: SigningRequest = {
      kind: "userOperation",
      chainId: 1,
      sender: SIMPLE,
      calls: [{ to: SIMPLE, data: batch, value: 0n }],
      signer: SIGNER,
    };
    expect(moved(op)).toEqual([
      [USDC, 4n, "transfer", 1],
      [USDC, 6n, "approve", 1],
      ["native", 1n, "value", 1],
    ]);
  });

  it("counts EIP-2612 and DAI permits, Permit2 (signed and called) and EIP-3009 authorizations", () => {
    const permit = typed(
      "Permit",
      { Permit: fields("address owner,address spender,uint256 value,uint256 nonce,uint256 deadline") },
      { owner: SIGNER, spender: BOB, value: "11", nonce: "0", deadline: "1" },
    );
    expect(moved(permit)).toEqual([[USDC, 11n, "permit", 1]]);
    const dai = typed(
      "Permit",
      { Permit: fields("address holder,address spender,uint256 nonce,uint256 expiry,bool allowed") },
      { holder: SIGNER, spender: BOB, nonce: "0", expiry: "1", allowed: true },
      DAI,
    );
    expect(tokenMovesOf(dai, new Set([DAI])).moves).toEqual([
      { chainId: 1, token: DAI, amount: 2n ** 256n - 1n, how: "permit" },
    ]);
    const single = typed(
      "PermitSingle",
      {
        PermitSingle: fields("PermitDetails details,address spender,uint256 sigDeadline"),
        PermitDetails: fields("address token,uint160 amount,uint48 expiration,uint48 nonce"),
      },
      { details: { token: USDC, amount: "12", expiration: "1", nonce: "0" }, spender: BOB, sigDeadline: "1" },
      PERMIT2,
    );
    expect(moved(single)).toEqual([[USDC, 12n, "permit", 1]]);
    const onPermit2 = encodeFunctionData({
      abi: permit2Abi,
      functionName: "approve",
      args: [USDC, BOB, 13n, 1],
    });
    expect(moved(tx(PERMIT2, onPermit2))).toEqual([[USDC, 13n, "permit2Approve", 1]]);
    const authorization = typed(
      "TransferWithAuthorization",
      {
        TransferWithAuthorization: fields(
          "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce",
        ),
      },
      {
        from: SIGNER,
        to: BOB,
        value: "14",
        validAfter: "0",
        validBefore: "1",
        nonce: `0x${"00".repeat(32)}`,
      },
    );
    expect(moved(authorization)).toEqual([[USDC, 14n, "authorization", 1]]);
  });

  it("anything else on a capped token is uncounted: another function, no data, other typed data", () => {
    expect(tokenMovesOf(tx(USDC, call("mint", 1n)), CAPPED)).toEqual({
      moves: [],
      uncounted: [{ chainId: 1, token: USDC, what: "0x40c10f19" }],
    });
    expect(tokenMovesOf(tx(USDC, "0x"), CAPPED).uncounted).toEqual([{ chainId: 1, token: USDC, what: "0x" }]);
    // A transfer cut short (no amount word) cannot be counted either.
    expect(tokenMovesOf(tx(USDC, call("transfer", 1n).slice(0, 74) as Hex), CAPPED).uncounted).toHaveLength(
      1,
    );
    const vote = typed("Vote", { Vote: fields("uint256 proposal") }, { proposal: "1" });
    expect(tokenMovesOf(vote, CAPPED).uncounted).toEqual([{ chainId: 1, token: USDC, what: "Vote" }]);
    // The same calls on a token no limit names are none of its business.
    expect(tokenMovesOf(tx(USDC, call("mint", 1n)), new Set())).toEqual({ moves: [], uncounted: [] });
  });

  it("a batch of requests counts each; a contract creation counts its value only", () => {
    const several: SigningRequest = {
      kind: "several",
      requests: [tx(USDC, call("transfer", 5n)), tx(USDC, call("approve", 7n), 2n)],
    };
    expect(moved(several)).toEqual([
      [USDC, 5n, "transfer", 1],
      ["native", 2n, "value", 1],
      [USDC, 7n, "approve", 1],
    ]);
    const creation: SigningRequest = { kind: "transaction", chainId: 1, to: null, data: "0x6080", value: 3n };
    expect(tokenMovesOf(creation, CAPPED)).toEqual({
      moves: [{ chainId: 1, token: "native", amount: 3n, how: "value" }],
      uncounted: [],
    });
  });

  it("Permit2's approve counts only on Permit2's selector, a clean token word and a capped token", () => {
    // transferFrom(USDC, BOB, 5) to a contract no limit names: its first word is a capped token, yet it is
    // no Permit2 approve.
    const elsewhere = encodeFunctionData({ abi: erc20, functionName: "transferFrom", args: [USDC, BOB, 5n] });
    expect(tokenMovesOf(tx(DAI, elsewhere), CAPPED)).toEqual({ moves: [], uncounted: [] });
    const onPermit2 = (token: Hex) =>
      encodeFunctionData({ abi: permit2Abi, functionName: "approve", args: [token, BOB, 13n, 1] });
    // A token no limit names, a token word with its high bytes set, a call cut after its selector.
    expect(tokenMovesOf(tx(PERMIT2, onPermit2(DAI)), CAPPED).moves).toEqual([]);
    const dirty = `${onPermit2(USDC).slice(0, 10)}ff${onPermit2(USDC).slice(12)}` as Hex;
    expect(tokenMovesOf(tx(PERMIT2, dirty), CAPPED).moves).toEqual([]);
    expect(tokenMovesOf(tx(PERMIT2, onPermit2(USDC).slice(0, 10) as Hex), CAPPED)).toEqual({
      moves: [],
      uncounted: [],
    });
    // The amount word is needed too.
    expect(tokenMovesOf(tx(PERMIT2, onPermit2(USDC).slice(0, 138) as Hex), CAPPED).moves).toEqual([]);
  });

  it("an uncounted call names its selector, a bare selector included, and data shorter than one as 0x", () => {
    expect(tokenMovesOf(tx(USDC, "0x12345678"), CAPPED).uncounted).toEqual([
      { chainId: 1, token: USDC, what: "0x12345678" },
    ]);
    expect(tokenMovesOf(tx(USDC, "0x1234"), CAPPED).uncounted).toEqual([
      { chainId: 1, token: USDC, what: "0x" },
    ]);
  });

  it("typed data on a capped token is uncounted unless it approves, transfers, or cancels", () => {
    const cancel = typed(
      "CancelAuthorization",
      { CancelAuthorization: fields("address authorizer,bytes32 nonce") },
      { authorizer: SIGNER, nonce: `0x${"00".repeat(32)}` },
    );
    expect(tokenMovesOf(cancel, CAPPED)).toEqual({ moves: [], uncounted: [] });
    const vote = typed("Vote", { Vote: fields("uint256 proposal") }, { proposal: "1" });
    // On a token no limit names, or with no verifying contract: none of a limit's business.
    expect(tokenMovesOf(vote, new Set([DAI]))).toEqual({ moves: [], uncounted: [] });
    const nowhere = typedDataRequest(
      {
        domain: { chainId: 1 },
        types: { Vote: fields("uint256 proposal") },
        primaryType: "Vote",
        message: { proposal: "1" },
      } as unknown as TypedDataDefinition,
      SIGNER,
    );
    expect(tokenMovesOf(nowhere, CAPPED)).toEqual({ moves: [], uncounted: [] });
    // A permit on the capped token is counted, not uncounted.
    const permit = typed(
      "Permit",
      { Permit: fields("address owner,address spender,uint256 value,uint256 nonce,uint256 deadline") },
      { owner: SIGNER, spender: BOB, value: "11", nonce: "0", deadline: "1" },
    );
    expect(tokenMovesOf(permit, CAPPED).uncounted).toEqual([]);
  });
});
