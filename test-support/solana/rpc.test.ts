import {
  airdropFactory,
  appendTransactionMessageInstruction,
  assertIsTransactionWithBlockhashLifetime,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  type Rpc,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type SolanaRpcApi,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SolanaRpcNode, startSolanaRpc } from "./rpc";
import { systemTransfer } from "./transfer";

let node: SolanaRpcNode;
let rpc: Rpc<SolanaRpcApi>;

async function signedTransfer(from: TransactionSigner, to: string, amount: bigint) {
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(from, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstruction(systemTransfer(from, to, amount), m),
    ),
  );
}

async function post(body: string): Promise<Record<string, unknown>> {
  const res = await fetch(node.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  node = await startSolanaRpc();
  rpc = createSolanaRpc(node.url);
});
afterAll(() => node.close());

describe("the litesvm JSON-RPC node", () => {
  it("airdrops and confirms a transfer through kit's WebSocket confirmation", async () => {
    const rpcSubscriptions = createSolanaRpcSubscriptions(node.wsUrl);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: alice.address,
      lamports: lamports(2_000_000_000n),
      commitment: "confirmed",
    });
    const tx = await signedTransfer(alice, bob.address, 1_000_000n);
    assertIsTransactionWithBlockhashLifetime(tx);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(tx, { commitment: "confirmed" });
    expect((await rpc.getBalance(bob.address).send()).value).toBe(1_000_000n);
    expect((await rpc.getBalance(alice.address).send()).value).toBe(2_000_000_000n - 1_000_000n - 5_000n);
    const { value } = await rpc.getSignatureStatuses([getSignatureFromTransaction(tx)]).send();
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });
  });

  it("answers send failures as a real node does, so kit maps them", async () => {
    const alice = await generateKeyPairSigner();
    node.svm.airdrop(alice.address, lamports(1_000_000_000n));
    const stale = await signedTransfer(alice, (await generateKeyPairSigner()).address, 1_000_000n);
    node.svm.expireBlockhash();
    const error = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(stale), { encoding: "base64" })
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(error)).toBe(true);
    expect(isSolanaError((error as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(
      true,
    );

    const broke = await generateKeyPairSigner();
    const unfunded = await signedTransfer(broke, alice.address, 1n);
    const answer = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "sendTransaction",
        params: [getBase64EncodedWireTransaction(unfunded), { encoding: "base64" }],
      }),
    );
    expect(answer.error).toMatchObject({ code: -32002, data: { err: "AccountNotFound" } });
  });

  it("answers bad input with JSON-RPC errors", async () => {
    expect((await post("{not json")).error).toMatchObject({ code: -32700 });
    expect((await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope" }))).error).toMatchObject({
      code: -32601,
    });
    const bad = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "sendTransaction",
        params: ["AAAA", { encoding: "base64" }],
      }),
    );
    expect(bad.error).toMatchObject({ code: -32602 });
    const batch = (await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "getHealth" },
        { jsonrpc: "2.0", id: 2, method: "getBalance", params: ["not an address"] },
      ]),
    )) as unknown as Record<string, unknown>[];
    expect(batch[0]).toMatchObject({ result: "ok" });
    expect(batch[1]).toMatchObject({ error: { code: -32602 } });
  });
});
