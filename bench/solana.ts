/**
 * Solana: time from send to confirmation of a SOL transfer through `sendSolanaTransaction` (the user pays
 * the fee, or the service's fee payer does under a sponsorship policy), beside the same transfer signed
 * by a local key; and the throughput of the sponsorship method alone (`latchkey_requestFeePayer` at
 * /rpc/v1, distinct transactions, 16 connections). Everything is real and local, one process each: the
 * service (`latchkey serve --dev`, SQLite), the Solana node (litesvm behind JSON-RPC and PubSub,
 * test-support/solana/cli.ts) and this client.
 *
 *   npm run bench:solana [-- --scale=0.5]
 *
 * The node makes every transaction final at once, so the figures are the client's, the service's and
 * the JSON-RPC round trips' work, not a cluster's confirmation time.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  sendSolanaTransaction,
} from "@latchkey/core";
import { solana } from "@latchkey/core/solana";
import { SOLANA_FEE_PAYER_METHOD } from "@latchkey/protocol";
import {
  type Address,
  address,
  appendTransactionMessageInstruction,
  assertIsTransactionWithBlockhashLifetime,
  compileTransaction,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { systemTransfer } from "../test-support/solana/transfer";
import { scaleArg } from "./lib/args";
import { type LoadResult, runLoad } from "./lib/load";
import { REPO_ROOT } from "./lib/paths";
import {
  latencyStats,
  machineInfo,
  printErrors,
  runBench,
  runRecord,
  table,
  timed,
  writeResults,
} from "./lib/report";
import { type ServiceHandle, startService } from "./lib/service";
import { readOtpCode } from "./lib/signerApi";

const APP = { id: "bench-sol", apiKey: "lk_bench_solana_fee_payer_key_0001", policyId: "pol_bench_sol" };
const SOL = 1_000_000_000n;

const scale = scaleArg();
const N = Math.max(5, Math.round(50 * scale));
const LOAD_N = Math.max(100, Math.round(2000 * scale));
const CONNECTIONS = 16;

/** The Solana node as its own process (test-support/solana/cli.ts), so its work is not on this loop. */
async function startSolanaNode(): Promise<{ url: string; wsUrl: string; stop(): void }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "test-support/solana/cli.ts"], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const ready = await new Promise<{ url: string; wsUrl: string }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the Solana node exited (${code})`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (line) =>
      resolve(JSON.parse(line)),
    );
  });
  process.once("exit", () => child.kill("SIGKILL"));
  return { ...ready, stop: () => child.kill("SIGTERM") };
}

async function signIn(svc: ServiceHandle, rpcUrl: string, email: string): Promise<Signer> {
  const signer = createSigner({
    baseUrl: svc.baseUrl,
    apiKey: APP.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    solana: solana({ rpcUrl }),
  });
  await signer.authenticate({ type: "email", email, emailMode: "otp" });
  await signer.authenticate({ type: "otp", otpCode: await readOtpCode(svc, email) });
  return signer;
}

/** The service's fee payer, as `latchkey solana-fee-payer` prints it (same database and master key). */
function feePayerOf(svc: ServiceHandle): Address {
  const out = execFileSync(
    process.execPath,
    [
      `${REPO_ROOT}/packages/server/bin/latchkey.js`,
      "solana-fee-payer",
      "--dev",
      "--db",
      `${svc.dir}/bench.db`,
    ],
    { cwd: svc.dir, encoding: "utf8" },
  );
  const found = /[1-9A-HJ-NP-Za-km-z]{32,44}/.exec(out)?.[0];
  if (!found) throw new Error(`latchkey solana-fee-payer printed no address: ${out}`);
  return address(found);
}

async function main() {
  const node = await startSolanaNode();
  let svc: ServiceHandle | undefined;
  try {
    svc = await startService({
      config: {
        solana: { rpcUrl: node.url },
        apps: [
          {
            id: APP.id,
            name: "Bench Solana",
            apiKeys: [APP.apiKey],
            sponsorship: { solanaPolicies: [{ id: APP.policyId }] },
          },
        ],
      },
    });
    const rpc = createSolanaRpc(node.url);
    const airdrop = (to: Address, amount: bigint) => rpc.requestAirdrop(to, lamports(amount)).send();
    const balance = async (a: Address) => (await rpc.getBalance(a).send()).value;
    const feePayer = feePayerOf(svc);
    await airdrop(feePayer, 1_000n * SOL);
    // The recipient exists (rent-exempt), so a transfer of any amount to it is valid.
    const recipient = (await generateKeyPairSigner()).address;
    await airdrop(recipient, SOL);

    // Baseline: the same transfer signed by a local key (kit, WebSocket confirmation).
    const local = await generateKeyPairSigner();
    await airdrop(local.address, 10n * SOL);
    const sendAndConfirm = sendAndConfirmTransactionFactory({
      rpc,
      rpcSubscriptions: createSolanaRpcSubscriptions(node.wsUrl),
    });
    // litesvm keeps one blockhash: every transfer moves a different amount, so no two are the same.
    let amount = 1_000n;
    const localTransfer = async () => {
      const { value: blockhash } = await rpc.getLatestBlockhash().send();
      const tx = await signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(local, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
          (m) => appendTransactionMessageInstruction(systemTransfer(local.address, recipient, amount++), m),
        ),
      );
      assertIsTransactionWithBlockhashLifetime(tx);
      await sendAndConfirm(tx, { commitment: "confirmed" });
    };
    await timed(3, localTransfer);
    const localKey = await timed(N, localTransfer);

    // The embedded wallet: the service signs for the user (and, sponsored, its fee payer signs too).
    const user = await signIn(svc, node.url, "bench-solana@example.com");
    const owner = address(user.getState().user?.solanaAddress as string);
    await airdrop(owner, 10n * SOL);
    const userPays = () =>
      sendSolanaTransaction(user, { transfer: { toAddress: recipient, amount: amount++ }, sponsored: false });
    const sponsoredSend = () =>
      sendSolanaTransaction(user, {
        transfer: { toAddress: recipient, amount: amount++ },
        policyId: APP.policyId,
      });
    await timed(3, userPays);
    const ownerBefore = await balance(owner);
    const unsponsored = await timed(N, userPays);
    const ownerMid = await balance(owner);
    await timed(3, sponsoredSend);
    const feePayerBefore = await balance(feePayer);
    const ownerBeforeSponsored = await balance(owner);
    const sponsored = await timed(N, sponsoredSend);
    const feePayerAfter = await balance(feePayer);
    const ownerAfter = await balance(owner);

    // The sponsorship method alone: distinct unsigned transfers from the user, fee payer set by the service.
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const request = (i: number) => {
      const wire = getBase64EncodedWireTransaction(
        compileTransaction(
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayer(owner, m),
            (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
            (m) =>
              appendTransactionMessageInstruction(
                systemTransfer(owner, recipient, 10_000_000n + BigInt(i)),
                m,
              ),
          ),
        ),
      );
      return {
        path: "/rpc/v1",
        body: Buffer.from(
          JSON.stringify({
            jsonrpc: "2.0",
            id: i,
            method: SOLANA_FEE_PAYER_METHOD,
            params: [{ policyId: APP.policyId, serializedTransaction: wire }],
          }),
        ),
      };
    };
    const validate = (_status: number, body: string) => {
      const answer = JSON.parse(body) as { result?: { serializedTransaction?: string }; error?: unknown };
      return answer.result?.serializedTransaction
        ? undefined
        : `no serializedTransaction: ${body.slice(0, 200)}`;
    };
    const load = (connections: number, n: number, offset: number): Promise<LoadResult> =>
      runLoad({
        baseUrl: svc?.baseUrl as string,
        connections,
        headers: { authorization: `Bearer ${APP.apiKey}` },
        warmup: Array.from({ length: Math.min(100, n) }, (_, i) => request(offset + i)),
        requests: Array.from({ length: n }, (_, i) => request(offset + 1_000 + i)),
        validate,
      });
    const single = await load(1, Math.max(50, Math.round(LOAD_N / 4)), 0);
    printErrors(single);
    const concurrent = await load(CONNECTIONS, LOAD_N, 1_000_000);
    printErrors(concurrent);

    const rows = [
      { path: "transfer, local key (kit)", ...latencyStats(localKey) },
      { path: "transfer, embedded, user pays", ...latencyStats(unsponsored) },
      { path: "transfer, embedded, sponsored", ...latencyStats(sponsored) },
    ];
    const throughput = [
      { method: SOLANA_FEE_PAYER_METHOD, ...runRecord(single) },
      { method: SOLANA_FEE_PAYER_METHOD, ...runRecord(concurrent) },
    ];
    // What the runs cost, from the node: the user pays amount + 5000 per transfer, or only the amount.
    const spent = {
      userPaysLamports: (ownerBefore - ownerMid).toString(),
      sponsoredUserLamports: (ownerBeforeSponsored - ownerAfter).toString(),
      sponsoredFeePayerLamports: (feePayerBefore - feePayerAfter).toString(),
    };
    process.stdout.write(`${table(rows, ["path", "n", "meanMs", "p50Ms", "p90Ms", "maxMs"])}\n\n`);
    process.stdout.write(
      `${table(throughput, ["method", "connections", "requests", "rps", "p50Ms", "p90Ms", "p99Ms", "maxMs", "errors"])}\n`,
    );
    process.stdout.write(`\nlamports spent over the timed runs: ${JSON.stringify(spent)}\n`);
    const file = writeResults("solana.json", {
      date: new Date().toISOString(),
      machine: machineInfo(),
      rows,
      throughput,
      spent,
    });
    process.stdout.write(`\nWrote ${file}\n`);
  } finally {
    await svc?.stop();
    node.stop();
  }
}

runBench(main);
