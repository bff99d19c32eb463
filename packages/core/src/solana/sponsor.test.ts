import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  type Instruction,
  pipe,
  type SignatureBytes,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { checkSponsoredTransaction, type ExpectedTransaction } from "./sponsor";

const user = address("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin");
const sponsor = address("GgBaCs3NCBuZN12kCJgAW63ydqohFkHEdfdEXBPzLHq");
const recipient = address("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T");
const memoSigner = address("HUBNaBrUuV3tHnGmTnGCQPjDcaBtc7mMK8DUSAnnoBEq");
const hash = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";

function transfer(amount: number): Instruction {
  const data = new Uint8Array(12);
  new DataView(data.buffer).setUint32(0, 2, true);
  new DataView(data.buffer).setBigUint64(4, BigInt(amount), true);
  return {
    programAddress: address("11111111111111111111111111111111"),
    accounts: [
      { address: user, role: AccountRole.WRITABLE_SIGNER },
      { address: recipient, role: AccountRole.WRITABLE },
    ],
    data,
  };
}
/** A memo the user co-signs read-only: the user's role changes once the user no longer pays the fee. */
const memo: Instruction = {
  programAddress: address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
  accounts: [
    { address: user, role: AccountRole.READONLY_SIGNER },
    { address: memoSigner, role: AccountRole.READONLY_SIGNER },
  ],
  data: new TextEncoder().encode("hi"),
};

/** What a fee payer service answers: the same message recompiled with its fee payer, signed. */
function sponsored(
  instructions: readonly Instruction[],
  options: { feePayer?: Address; blockhash?: string; signed?: boolean } = {},
): Transaction {
  const feePayer = options.feePayer ?? sponsor;
  const tx = compileTransaction(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(feePayer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash(options.blockhash ?? hash), lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
  if (options.signed === false) return tx;
  return {
    ...tx,
    signatures: { ...tx.signatures, [feePayer]: new Uint8Array(64).fill(7) as SignatureBytes },
  };
}

const expected = (instructions: readonly Instruction[]): ExpectedTransaction => ({
  instructions,
  blockhash: hash,
  userAddress: user,
});

describe("checkSponsoredTransaction", () => {
  it("accepts the same instructions and blockhash with the service's fee payer, which signed", () => {
    const instructions = [transfer(5), memo];
    expect(() => checkSponsoredTransaction(sponsored(instructions), expected(instructions))).not.toThrow();
  });

  it("refuses anything else, before the user signs", () => {
    const instructions = [transfer(5)];
    const cases: [Transaction, string][] = [
      [sponsored([transfer(6)]), "instruction 0 carries other data"],
      [sponsored([transfer(5), memo]), "it holds 2 instructions instead of 1"],
      [sponsored([memo]), "instruction 0 calls another program"],
      [sponsored(instructions, { blockhash: "11111111111111111111111111111111" }), "its blockhash differs"],
      [sponsored(instructions, { feePayer: user }), "the user still pays the fee"],
      [sponsored(instructions, { signed: false }), "its fee payer did not sign"],
      [
        sponsored([
          {
            ...transfer(5),
            accounts: [
              { address: user, role: AccountRole.WRITABLE_SIGNER },
              { address: sponsor, role: AccountRole.WRITABLE },
            ],
          },
        ]),
        "instruction 0 names other accounts or roles",
      ],
    ];
    for (const [transaction, details] of cases) {
      expect(() => checkSponsoredTransaction(transaction, expected(instructions))).toThrow(
        expect.objectContaining({ code: "SPONSORED_TRANSACTION_MISMATCH", details }),
      );
    }
  });
});
