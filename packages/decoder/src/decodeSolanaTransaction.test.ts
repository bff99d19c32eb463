import { base58 } from "@scure/base";
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getCreateAccountInstruction, getTransferSolInstruction } from "@solana-program/system";
import {
  getApproveCheckedInstruction,
  getApproveInstruction,
  getCloseAccountInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  COMPUTE_BUDGET_PROGRAM,
  decodeSolanaTransaction,
  TOKEN_2022_PROGRAM,
} from "./decodeSolanaTransaction";

const key = (n: number) => address(base58.encode(new Uint8Array(32).fill(n)));
const PAYER = createNoopSigner(key(1));
const NEW_ACCOUNT = createNoopSigner(key(2));
const BOB = key(3);
const SOURCE = key(4);
const DEST = key(5);
const MINT = key(6);
const DELEGATE = key(7);
const TABLE = key(8);
const OWNER_PROGRAM = key(9);
const MAX_U64 = 2n ** 64n - 1n;
const BLOCKHASH = key(10) as string as Blockhash;

const setComputeUnitLimit: Instruction = {
  programAddress: address(COMPUTE_BUDGET_PROGRAM),
  data: new Uint8Array([2, 0x40, 0x0d, 0x03, 0x00]),
};

function message(instructions: Instruction[], version: 0 | "legacy" = "legacy") {
  return pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(PAYER, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
}
const wire = (instructions: Instruction[], version: 0 | "legacy" = "legacy") =>
  new Uint8Array(getTransactionEncoder().encode(compileTransaction(message(instructions, version))));

describe("decodeSolanaTransaction", () => {
  it.each([
    [
      "a SOL transfer",
      getTransferSolInstruction({ source: PAYER, destination: BOB, amount: 1_500_000_000n }),
      { kind: "solTransfer", from: PAYER.address, to: BOB, lamports: 1_500_000_000n },
    ],
    [
      "createAccount",
      getCreateAccountInstruction({
        payer: PAYER,
        newAccount: NEW_ACCOUNT,
        lamports: 2_039_280n,
        space: 165,
        programAddress: OWNER_PROGRAM,
      }),
      {
        kind: "solCreateAccount",
        from: PAYER.address,
        account: NEW_ACCOUNT.address,
        lamports: 2_039_280n,
        space: 165n,
        owner: OWNER_PROGRAM,
      },
    ],
    [
      "an SPL transfer",
      getTransferInstruction({ source: SOURCE, destination: DEST, authority: PAYER, amount: 42n }),
      {
        kind: "splTransfer",
        program: "token",
        source: SOURCE,
        destination: DEST,
        authority: PAYER.address,
        amount: 42n,
      },
    ],
    [
      "an SPL transferChecked",
      getTransferCheckedInstruction({
        source: SOURCE,
        mint: MINT,
        destination: DEST,
        authority: PAYER,
        amount: 1_500_000n,
        decimals: 6,
      }),
      {
        kind: "splTransfer",
        program: "token",
        mint: MINT,
        destination: DEST,
        amount: 1_500_000n,
        decimals: 6,
      },
    ],
    [
      "an SPL approve of u64 max",
      getApproveInstruction({ source: SOURCE, delegate: DELEGATE, owner: PAYER, amount: MAX_U64 }),
      {
        kind: "splApprove",
        program: "token",
        source: SOURCE,
        delegate: DELEGATE,
        amount: MAX_U64,
        unlimited: true,
      },
    ],
    [
      "a Token-2022 approveChecked",
      getApproveCheckedInstruction(
        { source: SOURCE, mint: MINT, delegate: DELEGATE, owner: PAYER, amount: 5n, decimals: 2 },
        { programAddress: address(TOKEN_2022_PROGRAM) },
      ),
      {
        kind: "splApprove",
        program: "token2022",
        mint: MINT,
        delegate: DELEGATE,
        amount: 5n,
        unlimited: false,
        decimals: 2,
      },
    ],
    [
      "a Token-2022 transfer",
      getTransferInstruction(
        { source: SOURCE, destination: DEST, authority: PAYER, amount: 1n },
        { programAddress: address(TOKEN_2022_PROGRAM) },
      ),
      { kind: "splTransfer", program: "token2022", amount: 1n },
    ],
    [
      "closeAccount",
      getCloseAccountInstruction({ account: SOURCE, destination: PAYER.address, owner: PAYER }),
      { kind: "splCloseAccount", program: "token", account: SOURCE, destination: PAYER.address },
    ],
    [
      "an unknown program",
      {
        programAddress: address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
        data: new TextEncoder().encode("hi"),
      },
      { kind: "unknownInstruction", programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" },
    ],
    [
      "a System instruction it does not name (assign)",
      {
        programAddress: address("11111111111111111111111111111111"),
        accounts: [
          { address: BOB, role: 3 },
          { address: BOB, role: 3 },
        ],
        data: new Uint8Array([1, 0, 0, 0, ...new Uint8Array(32)]),
      },
      { kind: "unknownInstruction", programId: "11111111111111111111111111111111" },
    ],
  ] as [string, Instruction, object][])("%s (compute budget left out)", (_, instruction, action) => {
    for (const version of ["legacy", 0] as const) {
      const decoded = decodeSolanaTransaction(wire([setComputeUnitLimit, instruction], version));
      expect(decoded).toMatchObject({
        kind: "solanaTransaction",
        version,
        feePayer: PAYER.address,
        actions: [action],
      });
    }
  });

  it("reads a bare message and the base64 wire transaction alike", () => {
    const transfer = getTransferSolInstruction({ source: PAYER, destination: BOB, amount: 1n });
    const compiled = compileTransaction(message([transfer]));
    const fromMessage = decodeSolanaTransaction(new Uint8Array(compiled.messageBytes));
    expect(fromMessage).toEqual(decodeSolanaTransaction(wire([transfer])));
    expect(decodeSolanaTransaction(getBase64EncodedWireTransaction(compiled))).toEqual(fromMessage);
  });

  it("a v0 message's accounts from a lookup table read as null", () => {
    const transfer = getTransferInstruction({
      source: SOURCE,
      destination: DEST,
      authority: PAYER,
      amount: 3n,
    });
    const v0 = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(PAYER, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 1n }, m),
      (m) => appendTransactionMessageInstructions([transfer], m),
    );
    const compressed = compressTransactionMessageUsingAddressLookupTables(v0, { [TABLE]: [DEST as Address] });
    const bytes = new Uint8Array(getTransactionEncoder().encode(compileTransaction(compressed)));
    expect(decodeSolanaTransaction(bytes)).toMatchObject({
      version: 0,
      actions: [{ kind: "splTransfer", source: SOURCE, destination: null, amount: 3n }],
    });
  });

  it("warns of an unlimited approval and lamports above the threshold", () => {
    const decoded = decodeSolanaTransaction(
      wire([
        getApproveInstruction({ source: SOURCE, delegate: DELEGATE, owner: PAYER, amount: 2n ** 63n }),
        getTransferSolInstruction({ source: PAYER, destination: BOB, amount: 11n }),
      ]),
      { valueThreshold: 10n },
    );
    expect(decoded.warnings).toEqual([
      { kind: "unlimitedApproval", token: SOURCE, spender: DELEGATE },
      { kind: "valueAboveThreshold", value: 11n, threshold: 10n },
    ]);
  });

  it.each([
    ["no bytes", new Uint8Array()],
    [
      "a truncated transaction",
      () => wire([getTransferSolInstruction({ source: PAYER, destination: BOB, amount: 1n })]).slice(0, 120),
    ],
    ["trailing bytes", () => new Uint8Array([...wire([]), 0])],
    ["a compact-u16 of four bytes", new Uint8Array([1, 1, 0, 0xff, 0xff, 0xff, 0xff])],
    [
      "an account index out of range",
      () => {
        const bytes = wire([getTransferSolInstruction({ source: PAYER, destination: BOB, amount: 1n })]);
        bytes[bytes.length - 14] = 200; // the transfer's second account index
        return bytes;
      },
    ],
    ["base64 that is not", "not base64!"],
    ["a number", 42],
  ])("never throws: %s is unreadable", (_, input) => {
    const bytes = typeof input === "function" ? input() : input;
    expect(decodeSolanaTransaction(bytes as never)).toMatchObject({
      kind: "unreadable",
      reason: "malformedSolanaTransaction",
    });
  });

  it("a message of a later version is unsupported", () => {
    const bytes = new Uint8Array(compileTransaction(message([], 0)).messageBytes);
    bytes[0] = 0x81;
    expect(decodeSolanaTransaction(bytes)).toMatchObject({
      kind: "unreadable",
      reason: "unsupportedSolanaVersion",
    });
  });
});
