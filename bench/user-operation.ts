/**
 * Time to a receipt for a user operation (ERC-4337 v0.8 SimpleAccount, alto bundler) beside a plain
 * EOA transaction on the same local chain, and the latency of the service's ERC-7677 paymaster endpoint.
 * Everything is real and local: hardhat (automine) + EntryPoint v0.8 + alto + the service in process.
 *
 *   npm run bench:user-operation [-- --scale=0.5]
 *
 * Every path polls at 100 ms (viem's `pollingInterval`), so the ratio compares the work, not the poll.
 */

import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  getSmartAccountClient,
  type Signer,
  sendUserOperation,
  toViemAccount,
} from "@latchkey/core";
import { createWalletClient, encodeFunctionData, http, parseEther } from "viem";
import { formatUserOperationRequest, type UserOperation } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type ChainStack, counterAbi, smartAccountChainOf, startChainStack } from "../test-support/chain";
import { devMailbox, startTestService, type TestService } from "../test-support/service";
import { latencyStats, machineInfo, round, runBench, scaleArg, table, timed, writeResults } from "./lib";

const POLL_MS = 100;
const APP = { id: "bench", apiKey: "lk_bench_user_operations_key_0001", policyId: "pol_bench" };

const scale = scaleArg();
const N = Math.max(3, Math.round(20 * scale));
const PM_N = Math.max(10, Math.round(200 * scale));

async function signIn(
  svc: TestService,
  chain: ChainStack,
  email: string,
  policyId?: string,
): Promise<Signer> {
  const chains = [smartAccountChainOf(chain, policyId ? { policyId } : {})];
  const signer = createSigner({
    baseUrl: svc.url,
    apiKey: APP.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    chains,
  });
  await signer.authenticate({ type: "email", email, emailMode: "otp" });
  await signer.authenticate({ type: "otp", otpCode: await devMailbox(svc.service).otpCode(email) });
  return signer;
}

async function main() {
  const chain = await startChainStack();
  let svc: TestService | undefined;
  try {
    svc = await startTestService({
      dev: true,
      chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster }],
      apps: [
        {
          id: APP.id,
          name: "Bench",
          apiKeys: [APP.apiKey],
          sponsorship: { policies: [{ id: APP.policyId, chainId: chain.chainId }] },
        },
      ],
    });
    await chain.addPaymasterSigner(await svc.service.paymasterSignerAddress());
    const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });

    // A plain EOA transaction: a local key, and the embedded wallet's own key (signed by the service).
    const localAccount = privateKeyToAccount(generatePrivateKey());
    await chain.fund(localAccount.address, parseEther("10"));
    const local = createWalletClient({
      account: localAccount,
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    const eoaLocal = await timed(N, async () => {
      const hash = await local.sendTransaction({ to: chain.counter, data: increment });
      await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: POLL_MS });
    });
    const paying = await signIn(svc, chain, "bench-paying@example.com");
    const embedded = createWalletClient({
      account: toViemAccount(paying),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    await chain.fund(paying.getState().user?.address as `0x${string}`, parseEther("10"));
    const eoaEmbedded = await timed(N, async () => {
      const hash = await embedded.sendTransaction({ to: chain.counter, data: increment });
      await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: POLL_MS });
    });

    // User operations from the same user's smart account, paying its own gas; the first deploys it.
    await chain.fund((await getSmartAccountClient(paying)).account.address, parseEther("10"));
    const first = await timed(1, () =>
      sendUserOperation(paying, { uo: { target: chain.counter, data: increment }, waitForTxn: true }),
    );
    const selfPaid = await timed(N, () =>
      sendUserOperation(paying, { uo: { target: chain.counter, data: increment }, waitForTxn: true }),
    );
    // Sponsored by the service's paymaster (two more round trips to /rpc/v1, and the paymaster's checks).
    const sponsoredSigner = await signIn(svc, chain, "bench-sponsored@example.com", APP.policyId);
    await sendUserOperation(sponsoredSigner, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    const sponsored = await timed(N, () =>
      sendUserOperation(sponsoredSigner, {
        uo: { target: chain.counter, data: increment },
        waitForTxn: true,
      }),
    );

    // The paymaster endpoint alone: stub data (checks, no signature) and signed data (checks, spend record, signature).
    const client = await getSmartAccountClient(sponsoredSigner);
    const op = (await client.prepareUserOperation({
      calls: [{ to: chain.counter, data: increment }],
    })) as UserOperation;
    const rpc = (method: string) =>
      fetch(`${svc?.url}/rpc/v1`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${APP.apiKey}` },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method,
          params: [
            formatUserOperationRequest(op),
            chain.entryPoint,
            `0x${chain.chainId.toString(16)}`,
            { policyId: APP.policyId },
          ],
        }),
      }).then(async (r) => {
        const body = (await r.json()) as { error?: unknown };
        if (body.error) throw new Error(JSON.stringify(body.error));
      });
    const stub = await timed(PM_N, () => rpc("pm_getPaymasterStubData"));
    const data = await timed(PM_N, () => rpc("pm_getPaymasterData"));

    const rows = [
      { path: "EOA tx, local key", ...latencyStats(eoaLocal) },
      { path: "EOA tx, embedded key", ...latencyStats(eoaEmbedded) },
      { path: "user op, first (deploys)", ...latencyStats(first) },
      { path: "user op, self-paid", ...latencyStats(selfPaid) },
      { path: "user op, sponsored", ...latencyStats(sponsored) },
      { path: "pm_getPaymasterStubData", ...latencyStats(stub) },
      { path: "pm_getPaymasterData", ...latencyStats(data) },
    ];
    const ratio = (a: number[], b: number[]) => round(latencyStats(a).p50Ms / latencyStats(b).p50Ms, 2);
    const ratios = {
      selfPaidVsEoaEmbedded: ratio(selfPaid, eoaEmbedded),
      sponsoredVsEoaEmbedded: ratio(sponsored, eoaEmbedded),
      selfPaidVsEoaLocal: ratio(selfPaid, eoaLocal),
      sponsoredVsEoaLocal: ratio(sponsored, eoaLocal),
    };
    process.stdout.write(`${table(rows, ["path", "n", "meanMs", "p50Ms", "p90Ms", "maxMs"])}\n`);
    process.stdout.write(`ratios of p50 (user operation ÷ EOA transaction): ${JSON.stringify(ratios)}\n`);
    const file = writeResults("user-operation.json", {
      date: new Date().toISOString(),
      machine: machineInfo(),
      pollingIntervalMs: POLL_MS,
      rows,
      ratios,
    });
    process.stdout.write(`\nWrote ${file}\n`);
  } finally {
    await svc?.close();
    await chain.stop();
  }
}

runBench(main);
