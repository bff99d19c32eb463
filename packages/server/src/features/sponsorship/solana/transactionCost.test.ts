import { address, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { RpcError } from "../jsonRpc";
import { COMPUTE_BUDGET_PROGRAM, lamportsMoved, SYSTEM_PROGRAM, transactionFee } from "./transactionCost";

const system = (data: number[] | Uint8Array): Instruction => ({
  programAddress: address(SYSTEM_PROGRAM),
  data: Uint8Array.from(data),
});
const budget = (data: number[]): Instruction => ({
  programAddress: address(COMPUTE_BUDGET_PROGRAM),
  data: Uint8Array.from(data),
});
const other: Instruction = { programAddress: address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr") };

const le = (value: bigint, bytes: number) =>
  Array.from({ length: bytes }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));
const owner = Array(32).fill(9);

function reason(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (e instanceof RpcError) return e.reason;
    throw e;
  }
}

describe("lamportsMoved", () => {
  it("sums what System transfer, createAccount(WithSeed), transferWithSeed and withdrawNonceAccount move", () => {
    const transfer = system([...le(2n, 4), ...le(7n, 8)]);
    const createAccount = system([...le(0n, 4), ...le(11n, 8), ...le(0n, 8), ...owner]);
    const seed = [...new TextEncoder().encode("seed")];
    const createWithSeed = system([
      ...le(3n, 4),
      ...owner,
      ...le(BigInt(seed.length), 8),
      ...seed,
      ...le(13n, 8),
      ...le(0n, 8),
      ...owner,
    ]);
    const transferWithSeed = system([...le(11n, 4), ...le(17n, 8), ...le(1n, 8), 65, ...owner]);
    const withdrawNonce = system([...le(5n, 4), ...le(19n, 8)]);
    const assign = system([...le(1n, 4), ...owner]);
    expect(
      lamportsMoved([
        transfer,
        createAccount,
        createWithSeed,
        transferWithSeed,
        withdrawNonce,
        assign,
        other,
      ]),
    ).toBe(7n + 11n + 13n + 17n + 19n);
  });

  it("refuses a System instruction too short to say what it moves", () => {
    expect(reason(() => lamportsMoved([system([2, 0, 0, 0, 1])]))).toBe("SOLANA_TRANSACTION_INVALID");
    expect(reason(() => lamportsMoved([system([2, 0])]))).toBe("SOLANA_TRANSACTION_INVALID");
    expect(reason(() => lamportsMoved([system([...le(3n, 4), ...owner, ...le(40n, 8)])]))).toBe(
      "SOLANA_TRANSACTION_INVALID",
    );
  });
});

describe("transactionFee", () => {
  it("is 5000 per signature without a priority fee", () => {
    expect(transactionFee([other], 2)).toBe(10_000n);
  });

  it("adds the unit price × the unit limit, rounded up from micro-lamports", () => {
    const price = (microLamports: bigint) => budget([3, ...le(microLamports, 8)]);
    const limit = (units: bigint) => budget([2, ...le(units, 4)]);
    // Default limit: 200,000 per instruction that is not a ComputeBudget one.
    expect(transactionFee([price(1_000_000n), other, other], 1)).toBe(5_000n + 400_000n);
    expect(transactionFee([price(1n), limit(300n), other], 1)).toBe(5_000n + 1n);
    // At most 1,400,000 units.
    expect(transactionFee([price(1_000_000n), ...Array(10).fill(other)], 1)).toBe(5_000n + 1_400_000n);
    expect(transactionFee([price(1_000_000n), limit(4_000_000n), other], 1)).toBe(5_000n + 1_400_000n);
  });

  it("counts the signatures the precompiles verify", () => {
    const ed25519: Instruction = {
      programAddress: address("Ed25519SigVerify111111111111111111111111111"),
      data: Uint8Array.from([3, 0]),
    };
    expect(transactionFee([ed25519, other], 2)).toBe(25_000n);
  });

  it("refuses ComputeBudget instructions the runtime would not run: repeated, deprecated, malformed", () => {
    const price = budget([3, ...le(1n, 8)]);
    expect(reason(() => transactionFee([price, price, other], 1))).toBe("SOLANA_TRANSACTION_INVALID");
    expect(reason(() => transactionFee([budget([0, ...le(1n, 8)]), other], 1))).toBe(
      "SOLANA_TRANSACTION_INVALID",
    );
    expect(reason(() => transactionFee([budget([2, 1, 0]), other], 1))).toBe("SOLANA_TRANSACTION_INVALID");
    expect(reason(() => transactionFee([budget([]), other], 1))).toBe("SOLANA_TRANSACTION_INVALID");
  });
});
