import { encodeFunctionData, getAddress, type Hex, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { simpleAccountCallsAbi } from "../../userOperations/decodeCalls";
import {
  ACCOUNT_CALL_SELECTORS,
  approveData,
  type CallsRead,
  callsOf,
  expandCalls,
  MAX_CALL_DEPTH,
  nativeValueOf,
  signedBy,
} from "./callsOf";
import { ownAccounts } from "./ownAccounts";
import type { SigningRequest } from "./signingRequest";

// "abandon … about"'s EOA and its SimpleAccount of salt 0 (ownAccounts.test.ts pins them).
const SIGNER = "0x9858effd232b4033e47d90003d41ec34ecaeda94" as const;
const SIMPLE = "0xf69e5094a3eec379aac1d35d353d8d043df5762f" as const;
const FRIEND = "0x1111111111111111111111111111111111111111" as const;
const TOKEN = "0x2222222222222222222222222222222222222222" as const;
const OTHER_ACCOUNT = "0x3333333333333333333333333333333333333333" as const;
const UPGRADE: Hex = "0x4f1ef2860000";

const execute = (target: Hex, value: bigint, data: Hex = "0x") =>
  encodeFunctionData({ abi: simpleAccountCallsAbi, functionName: "execute", args: [target, value, data] });
const executeBatch = (calls: { target: Hex; value: bigint; data: Hex }[]) =>
  encodeFunctionData({ abi: simpleAccountCallsAbi, functionName: "executeBatch", args: [calls] });
const tx = (to: Hex | null, data: Hex, value = 0n, signer: Hex | null = SIGNER): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to,
  data,
  value,
  ...(signer ? { signer } : {}),
});
const plainOf = (r: SigningRequest) => plain(callsOf(r));
/** A read's calls as {to, data, value} (a transaction's own call is the request itself). */
const plain = (read: CallsRead) => ({
  calls: read.calls.map(({ to, data, value, ...rest }) => ({
    to,
    data,
    value,
    ...("primaryType" in rest ? rest : {}),
  })),
  unreadable: read.unreadable && {
    to: read.unreadable.to,
    data: read.unreadable.data,
    value: read.unreadable.value,
  },
});

describe("callsOf", () => {
  it("knows execute's and executeBatch's selectors", () => {
    expect(ACCOUNT_CALL_SELECTORS).toEqual(simpleAccountCallsAbi.map((f) => toFunctionSelector(f)));
  });

  it("a plain transaction is its one call", () => {
    expect(plainOf(tx(FRIEND, "0xabcdef01", 5n))).toEqual({
      calls: [{ to: FRIEND, data: "0xabcdef01", value: 5n }],
      unreadable: null,
    });
    expect(plainOf(tx(null, "0x6080", 0n)).calls).toEqual([{ to: null, data: "0x6080", value: 0n }]);
  });

  it("a self-call through the EOA (7702) is the calls it runs, not a call itself", () => {
    const read = plainOf(tx(SIGNER, execute(FRIEND, 7n, "0x12345678"), 0n));
    expect(read).toEqual({ calls: [{ to: FRIEND, data: "0x12345678", value: 7n }], unreadable: null });
  });

  it("the signer's address is matched in any case", () => {
    const upper = `0x${SIGNER.slice(2).toUpperCase()}` as Hex;
    expect(plainOf(tx(upper, execute(FRIEND, 1n))).calls).toEqual([{ to: FRIEND, data: "0x", value: 1n }]);
  });

  it("a batch through the SimpleAccount is each call, targets lower-case", () => {
    const upperFriend = getAddress("0xabcdefabcdefabcdefabcdefabcdefabcdefabcd");
    const read = plainOf(
      tx(
        SIMPLE,
        executeBatch([
          { target: FRIEND, value: 1n, data: "0x" },
          {
            target: upperFriend,
            value: 2n,
            data: approveData({ token: TOKEN, spender: FRIEND, amount: 3n }),
          },
        ]),
      ),
    );
    expect(read.calls.map((c) => [c.to, c.value])).toEqual([
      [FRIEND, 1n],
      [upperFriend.toLowerCase(), 2n],
    ]);
    expect(read.unreadable).toBeNull();
  });

  it("a plain transfer to self (no data) stays a call", () => {
    expect(plainOf(tx(SIGNER, "0x", 9n)).calls).toEqual([{ to: SIGNER, data: "0x", value: 9n }]);
  });

  it("a self-call that runs anything but execute is unreadable", () => {
    const read = plainOf(tx(SIGNER, UPGRADE));
    expect(read.calls).toEqual([]);
    expect(read.unreadable).toEqual({ to: SIGNER, data: UPGRADE, value: 0n });
  });

  it("an execute to another address is a call, and so are the calls it would run", () => {
    const data = execute(FRIEND, 4n, "0xdeadbeef");
    const read = plainOf(tx(OTHER_ACCOUNT, data, 0n));
    expect(read.calls).toEqual([
      { to: OTHER_ACCOUNT, data, value: 0n },
      { to: FRIEND, data: "0xdeadbeef", value: 4n },
    ]);
    expect(read.unreadable).toBeNull();
  });

  it("data that only starts like execute but does not decode is one call, and unreadable only on self", () => {
    const broken = `${ACCOUNT_CALL_SELECTORS[0]}00` as Hex;
    expect(plainOf(tx(FRIEND, broken))).toEqual({
      calls: [{ to: FRIEND, data: broken, value: 0n }],
      unreadable: null,
    });
    expect(plainOf(tx(SIGNER, broken)).unreadable).toEqual({ to: SIGNER, data: broken, value: 0n });
  });

  it(`reads ${MAX_CALL_DEPTH} levels of execute in execute, and no deeper`, () => {
    let data = execute(FRIEND, 1n);
    for (let i = 1; i < MAX_CALL_DEPTH; i++) data = execute(SIGNER, 0n, data);
    expect(plainOf(tx(SIGNER, data))).toEqual({
      calls: [{ to: FRIEND, data: "0x", value: 1n }],
      unreadable: null,
    });
    const deeper = execute(SIGNER, 0n, data);
    const read = plainOf(tx(SIGNER, deeper));
    expect(read.calls).toEqual([]);
    expect(read.unreadable?.to).toBe(SIGNER);
  });

  it("the first unreadable call is the one named", () => {
    const read = expandCalls(
      [
        { to: SIGNER, data: UPGRADE, value: 0n },
        { to: SIGNER, data: "0x12345678", value: 0n },
      ],
      ownAccounts(SIGNER),
    );
    expect(read.unreadable?.data).toBe(UPGRADE);
  });

  it("without a signer, nothing is the user's own: an execute to the EOA is read as a call and its calls", () => {
    const data = execute(FRIEND, 2n);
    expect(plainOf(tx(SIGNER, data, 0n, null)).calls).toEqual([
      { to: SIGNER, data, value: 0n },
      { to: FRIEND, data: "0x", value: 2n },
    ]);
  });

  it("a user operation reads its sender as the user's own, unless it is the zero address", () => {
    const sender = "0x4444444444444444444444444444444444444444" as Hex;
    const userOp = (s: Hex): SigningRequest => ({
      kind: "userOperation",
      chainId: 1,
      sender: s,
      signer: SIGNER,
      calls: [{ to: s, data: execute(FRIEND, 3n), value: 0n }],
    });
    expect(plainOf(userOp(sender)).calls).toEqual([{ to: FRIEND, data: "0x", value: 3n }]);
    expect(plainOf(userOp(`0x${sender.slice(2).toUpperCase()}` as Hex)).calls).toEqual([
      { to: FRIEND, data: "0x", value: 3n },
    ]);
    const zero = "0x0000000000000000000000000000000000000000" as Hex;
    expect(plainOf(userOp(zero)).calls).toHaveLength(2);
    // The zero sender still reads the signer's own accounts through.
    const viaSimple: SigningRequest = {
      kind: "userOperation",
      chainId: 1,
      sender: zero,
      signer: SIGNER,
      calls: [{ to: SIMPLE, data: execute(FRIEND, 8n), value: 0n }],
    };
    expect(plainOf(viaSimple).calls).toEqual([{ to: FRIEND, data: "0x", value: 8n }]);
  });

  it("a permit is read as approve calls on its tokens, with its primary type", () => {
    const read = plainOf({
      kind: "typedData",
      chainId: 1,
      primaryType: "Permit",
      verifyingContract: TOKEN,
      approvals: [{ token: TOKEN, spender: FRIEND, amount: 255n }],
    });
    expect(read).toEqual({
      calls: [
        {
          to: TOKEN,
          data: `0x095ea7b3${FRIEND.slice(2).padStart(64, "0")}${"ff".padStart(64, "0")}`,
          value: 0n,
          primaryType: "Permit",
        },
      ],
      unreadable: null,
    });
  });

  it("several payloads are all their calls, and the first unreadable one", () => {
    const read = plainOf({
      kind: "several",
      requests: [tx(FRIEND, "0x", 1n), tx(SIGNER, UPGRADE), tx(SIGNER, "0xabcdef00"), { kind: "message" }],
    });
    expect(read.calls).toEqual([{ to: FRIEND, data: "0x", value: 1n }]);
    expect(read.unreadable?.data).toBe(UPGRADE);
    expect(plainOf({ kind: "several", requests: [tx(FRIEND, "0x", 1n)] }).unreadable).toBeNull();
  });

  it("what makes no call makes none", () => {
    for (const r of [
      { kind: "message" },
      { kind: "rawPayload" },
      { kind: "solanaPayload" },
      { kind: "authorization", chainId: 1, delegate: FRIEND },
    ] as SigningRequest[]) {
      expect(plainOf(r)).toEqual({ calls: [], unreadable: null });
    }
  });
});

describe("nativeValueOf", () => {
  it("sums the values of every call a signature makes, through self-calls", () => {
    const data = executeBatch([
      { target: FRIEND, value: 60n, data: "0x" },
      { target: TOKEN, value: 50n, data: "0x" },
    ]);
    expect(nativeValueOf(tx(SIGNER, data, 0n))).toBe(110n);
    expect(nativeValueOf(tx(FRIEND, "0x", 3n))).toBe(3n);
    expect(nativeValueOf({ kind: "message" })).toBe(0n);
  });
});

describe("signedBy", () => {
  it("names the signer, lower-case, on transactions, user operations and each of several", () => {
    const upper = `0x${SIGNER.slice(2).toUpperCase()}`;
    expect(signedBy(tx(FRIEND, "0x", 0n, null), upper)).toMatchObject({ signer: SIGNER });
    const op: SigningRequest = { kind: "userOperation", chainId: 1, sender: SIMPLE, calls: [] };
    expect(signedBy(op, upper)).toMatchObject({ signer: SIGNER });
    const several = signedBy({ kind: "several", requests: [tx(FRIEND, "0x", 0n, null), op] }, upper);
    expect(
      several.kind === "several" && several.requests.map((r) => ("signer" in r ? r.signer : null)),
    ).toEqual([SIGNER, SIGNER]);
    const message: SigningRequest = { kind: "message" };
    expect(signedBy(message, upper)).toBe(message);
  });
});
