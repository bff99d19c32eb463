import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  announceEip1193Provider,
  createEip1193Provider,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Eip6963ProviderInfo,
  getSmartAccountClient,
  type LatchkeyEip1193Provider,
  ProviderRpcError,
  type Signer,
  setSignInPrompt,
} from "@latchkey/core";
import {
  type Address,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hex,
  http,
  numberToHex,
  parseAbi,
  parseEther,
  recoverMessageAddress,
  recoverTypedDataAddress,
  toHex,
} from "viem";
import { formatUserOperation, type UserOperation } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChainStack,
  counterAbi,
  mockPaymasterModules,
  smartAccountChainOf,
} from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { devMailbox, startTestService } from "../../../test-support/service";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// One chain (hardhat + EntryPoint v0.8 + SimpleAccountFactory + paymaster + alto) and one service for the file.
let chain: ChainStack;
let svc: TestService;
let signer: Signer;
let provider: LatchkeyEip1193Provider;
let account: Address; // the smart account
let owner: Address; // the embedded EOA

const OTHER_CHAIN_ID = 31338; // configured, never sent to: only switched to
const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
const add = (n: bigint) => encodeFunctionData({ abi: counterAbi, functionName: "add", args: [n] });
const fail = encodeFunctionData({ abi: counterAbi, functionName: "fail" });
const counterValue = () =>
  chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });

const chainsOf = (c: ChainStack) => [
  smartAccountChainOf(c),
  { chain: { ...c.chain, id: OTHER_CHAIN_ID, name: "Other" }, rpcUrl: c.rpcUrl, bundlerUrl: c.bundlerUrl },
];

/** What a provider request fails with. */
async function failure(p: LatchkeyEip1193Provider, method: string, params?: unknown[]) {
  const error = await p.request({ method, params } as never).then(
    () => {
      throw new Error(`${method} did not fail`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderRpcError);
  return error as ProviderRpcError;
}

/** viem's error → the provider's code (viem wraps it; `code` stays on the outer error). */
const codeOf = (error: unknown) => (error as { code?: number }).code;

beforeAll(async () => {
  [chain, svc] = await Promise.all([sharedChainStack(), startService()]);
  // A SimpleAccount (the 4337 option): the account and its owner differ. The 7702 account's provider
  // (eth_accounts = the EOA): node-smart-account-7702.test.ts.
  signer = await signInWithOtp(svc, "provider@example.com", {
    chains: chainsOf(chain),
    smartAccount: { kind: "4337" },
  });
  provider = createEip1193Provider(signer);
  account = (await getSmartAccountClient(signer)).account.address;
  owner = signer.getState().user?.address as Address;
  await chain.fund(account, parseEther("1"));
});
afterAll(async () => {
  await Promise.all([chain?.stop(), svc?.close()]);
});

describe("the EIP-1193 provider", () => {
  it("answers the smart account, the chain id, and forwards chain reads to the node", async () => {
    expect(await provider.request({ method: "eth_accounts" })).toEqual([account]);
    expect(await provider.request({ method: "eth_requestAccounts" })).toEqual([account]);
    expect(await provider.request({ method: "eth_chainId" })).toBe(numberToHex(chain.chainId));
    expect(await provider.request({ method: "eth_blockNumber" })).toMatch(/^0x[0-9a-f]+$/);
    expect(BigInt(await provider.request({ method: "eth_getBalance", params: [account, "latest"] }))).toBe(
      await chain.publicClient.getBalance({ address: account }),
    );
    const number = await provider.request({
      method: "eth_call",
      params: [
        { to: chain.counter, data: encodeFunctionData({ abi: counterAbi, functionName: "number" }) },
        "latest",
      ],
    });
    expect(BigInt(number)).toBe(await counterValue());

    const wallet = createWalletClient({ chain: chain.chain, transport: custom(provider) });
    expect(await wallet.getAddresses()).toEqual([account]);
    expect(await wallet.requestAddresses()).toEqual([account]);
    expect(await wallet.getChainId()).toBe(chain.chainId);
  });

  it("viem's wallet client sends a transaction: one user operation, answered with the transaction hash", async () => {
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    const before = await counterValue();
    const hash = await wallet.sendTransaction({ to: chain.counter, data: increment });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await counterValue()).toBe(before + 1n);
    // the receipt through the provider too (a forwarded read)
    const viaProvider = await provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    expect(viaProvider?.transactionHash).toBe(hash);
  });

  it("viem's sendCalls sends a batch as one atomic user operation; waitForCallsStatus reports it with its receipt", async () => {
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    const before = await counterValue();
    const { id } = await wallet.sendCalls({
      calls: [
        { to: chain.counter, data: increment },
        { to: chain.counter, abi: counterAbi, functionName: "add", args: [5n] },
      ],
      forceAtomic: true,
    });
    expect(id).toMatch(/^0x[0-9a-f]{64}$/); // the user operation's hash
    const status = await wallet.waitForCallsStatus({ id, pollingInterval: 100, timeout: 30_000 });
    expect(status).toMatchObject({ status: "success", statusCode: 200, atomic: true, version: "2.0.0" });
    expect(status.chainId).toBe(chain.chainId);
    expect(status.receipts).toHaveLength(1);
    const [receipt] = status.receipts ?? [];
    expect(receipt?.status).toBe("success");
    expect(receipt?.blockNumber).toBeTypeOf("bigint");
    // the counter's logs are there (the user operation's own logs)
    expect(receipt?.logs.length).toBeGreaterThan(0);
    const tx = await chain.publicClient.getTransactionReceipt({ hash: receipt?.transactionHash as Hex });
    expect(tx.status).toBe("success");
    expect(await counterValue()).toBe(before + 6n);

    // the raw answer, per EIP-5792
    const raw = await provider.request({ method: "wallet_getCallsStatus", params: [id] });
    expect(raw).toMatchObject({
      version: "2.0.0",
      id,
      chainId: numberToHex(chain.chainId),
      status: 200,
      atomic: true,
    });
    expect(raw.receipts?.[0]).toMatchObject({ status: "0x1", transactionHash: tx.transactionHash });
    expect(await wallet.getCallsStatus({ id })).toMatchObject({ status: "success", statusCode: 200 });
  });

  it("wallet_sendCalls keeps the app's id (5720 for a duplicate); a pending batch is 100; an unknown id is 5730", async () => {
    const batchId = `app-batch-${Date.now()}`;
    const request = {
      version: "2.0.0",
      id: batchId,
      from: account,
      chainId: numberToHex(chain.chainId),
      atomicRequired: true,
      calls: [{ to: chain.counter, data: add(2n) }],
    };
    const before = await counterValue();
    expect(await provider.request({ method: "wallet_sendCalls", params: [request] })).toEqual({
      id: batchId,
    });
    const first = await provider.request({ method: "wallet_getCallsStatus", params: [batchId] });
    expect([100, 200]).toContain(first.status);
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    const done = await wallet.waitForCallsStatus({ id: batchId, pollingInterval: 100 });
    expect(done.statusCode).toBe(200);
    expect(await counterValue()).toBe(before + 2n);

    expect((await failure(provider, "wallet_sendCalls", [request])).code).toBe(5720);
    expect((await failure(provider, "wallet_getCallsStatus", ["no-such-batch"])).code).toBe(5730);
    expect((await failure(provider, "wallet_getCallsStatus", [`0x${"12".repeat(32)}`])).code).toBe(5730);
  });

  it("wallet_getCallsStatus finds a batch sent through another provider by its user operation hash", async () => {
    const { id } = await provider.request({
      method: "wallet_sendCalls",
      params: [{ version: "2.0.0", atomicRequired: true, calls: [{ to: chain.counter, data: increment }] }],
    });
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    await wallet.waitForCallsStatus({ id, pollingInterval: 100 });
    const fresh = createEip1193Provider(signer); // e.g. after a reload
    expect(await fresh.request({ method: "wallet_getCallsStatus", params: [id] })).toMatchObject({
      id,
      status: 200,
      atomic: true,
    });
  });

  it("refuses what it cannot do atomically or does not know, with EIP-5792 codes", async () => {
    const base = { version: "2.0.0", atomicRequired: true, calls: [{ to: chain.counter, data: increment }] };
    const unsupported = await failure(provider, "wallet_sendCalls", [
      { ...base, capabilities: { auxiliaryFunds: { supported: true } } },
    ]);
    expect(unsupported.code).toBe(5700);
    // an optional unknown capability is ignored (and the batch lands)
    const { id } = await provider.request({
      method: "wallet_sendCalls",
      params: [{ ...base, capabilities: { somethingNew: { optional: true } } }],
    });
    await createWalletClient({ chain: chain.chain, transport: custom(provider) }).waitForCallsStatus({
      id,
      pollingInterval: 100,
    });
    expect((await failure(provider, "wallet_sendCalls", [{ ...base, chainId: "0x1" }])).code).toBe(5710);
    expect((await failure(provider, "wallet_sendCalls", [{ ...base, from: owner }])).code).toBe(4100);
    expect((await failure(provider, "wallet_sendCalls", [{ ...base, calls: [] }])).code).toBe(-32602);
    const reverting = await failure(provider, "wallet_sendCalls", [
      {
        ...base,
        calls: [
          { to: chain.counter, data: increment },
          { to: chain.counter, data: fail },
        ],
      },
    ]);
    expect(reverting.code).toBe(-32003);
    expect(reverting.data).toMatchObject({ code: "USER_OPERATION_REVERTED" });
    expect(reverting.message).toContain("Counter: fail");
  });

  it("wallet_getCapabilities reports atomic batches and paymaster services on every configured chain", async () => {
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    const expected = { atomic: { status: "supported" }, paymasterService: { supported: true } };
    expect(await wallet.getCapabilities()).toEqual({ [chain.chainId]: expected, [OTHER_CHAIN_ID]: expected });
    expect(await wallet.getCapabilities({ chainId: chain.chainId })).toEqual(expected);
    expect(await provider.request({ method: "wallet_getCapabilities", params: [account] })).toEqual({
      [numberToHex(chain.chainId)]: expected,
      [numberToHex(OTHER_CHAIN_ID)]: expected,
    });
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    expect((await failure(provider, "wallet_getCapabilities", [stranger])).code).toBe(4100);
  });

  it("personal_sign and eth_signTypedData_v4 verify for the smart account (LatchkeySimpleAccount: ERC-1271 / ERC-6492)", async () => {
    const wallet = createWalletClient({ account, chain: chain.chain, transport: custom(provider) });
    const message = "Sign in to the demo";
    const signature = await wallet.signMessage({ message });
    expect(await chain.publicClient.verifyMessage({ address: account, message, signature })).toBe(true);
    expect(await chain.publicClient.verifyMessage({ address: account, message: "other", signature })).toBe(
      false,
    );
    // …owned on chain (or by its factory's createAccount) by the embedded EOA
    expect(
      await chain.publicClient.readContract({
        address: chain.latchkeyAccountFactory,
        abi: parseAbi(["function getAddress(address owner, uint256 salt) view returns (address)"]),
        functionName: "getAddress",
        args: [owner, 0n],
      }),
    ).toBe(account);
    // raw bytes, and the owner's address asked for directly: the owner's own signature
    const raw = await provider.request({ method: "personal_sign", params: [toHex("bytes"), owner] });
    expect(await recoverMessageAddress({ message: { raw: toHex("bytes") }, signature: raw })).toBe(owner);

    const typedData = {
      domain: { name: "Demo", version: "1", chainId: chain.chainId, verifyingContract: chain.counter },
      types: {
        Mail: [
          { name: "to", type: "address" },
          { name: "contents", type: "string" },
          { name: "n", type: "uint256" },
        ],
      },
      primaryType: "Mail",
      message: { to: chain.counter, contents: "hello", n: 42n },
    } as const;
    const typedSignature = await wallet.signTypedData(typedData);
    expect(
      await chain.publicClient.verifyTypedData({ address: account, ...typedData, signature: typedSignature }),
    ).toBe(true);
    const ownerTyped = (await provider.request({
      method: "eth_signTypedData_v4",
      params: [owner, JSON.stringify({ ...typedData, message: { ...typedData.message, n: "42" } })],
    })) as Hex;
    expect(await recoverTypedDataAddress({ ...typedData, signature: ownerTyped })).toBe(owner);

    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    expect((await failure(provider, "personal_sign", [toHex("x"), stranger])).code).toBe(4100);
    expect((await failure(provider, "personal_sign", [toHex("x"), "not an address"])).code).toBe(-32602);
    const badTypes = await failure(provider, "eth_signTypedData_v4", [
      account,
      JSON.stringify({ ...typedData, message: { to: "0x1234", contents: "x", n: "1" } }),
    ]);
    expect(badTypes.code).toBe(-32602);
  });

  it("switches among configured chains (chainChanged fires); an unconfigured chain is 4902", async () => {
    const changes: string[] = [];
    const onChain = (id: string) => changes.push(id);
    provider.on("chainChanged", onChain);
    try {
      const wallet = createWalletClient({ chain: chain.chain, transport: custom(provider) });
      await wallet.switchChain({ id: chain.chainId }); // already there: no event
      await provider.request({
        method: "wallet_switchEthereumChain",
        params: [{ chainId: numberToHex(OTHER_CHAIN_ID) }],
      });
      expect(await provider.request({ method: "eth_chainId" })).toBe(numberToHex(OTHER_CHAIN_ID));
      await wallet.switchChain({ id: chain.chainId });
      expect(changes).toEqual([numberToHex(OTHER_CHAIN_ID), numberToHex(chain.chainId)]);

      const error = await wallet.switchChain({ id: 1 }).catch((e: unknown) => e);
      expect(codeOf(error)).toBe(4902);
      expect((await failure(provider, "wallet_switchEthereumChain", [{ chainId: "0x1" }])).code).toBe(4902);
      expect(await provider.request({ method: "eth_chainId" })).toBe(numberToHex(chain.chainId));

      // wallet_addEthereumChain: a configured chain is fine; another needs a bundler, which it cannot carry
      expect(
        await provider.request({
          method: "wallet_addEthereumChain",
          params: [{ chainId: numberToHex(chain.chainId), chainName: "Hardhat", rpcUrls: [chain.rpcUrl] }],
        }),
      ).toBeNull();
      const add = await failure(provider, "wallet_addEthereumChain", [
        { chainId: "0x2105", chainName: "Base", rpcUrls: ["https://mainnet.base.org"] },
      ]);
      expect(add.code).toBe(4902);
      expect(add.message).toMatch(/bundler/);
    } finally {
      provider.removeListener("chainChanged", onChain);
    }
  });

  it("unknown wallet and signing methods are 4200; a wrong sender is 4100; a bad transaction is -32602", async () => {
    for (const method of [
      "wallet_showCallsStatus",
      "wallet_foo",
      "eth_sign",
      "eth_signTransaction",
      "eth_signTypedData_v3",
    ]) {
      expect((await failure(provider, method, [])).code).toBe(4200);
    }
    expect(
      (await failure(provider, "eth_sendTransaction", [{ from: owner, to: chain.counter, data: increment }]))
        .code,
    ).toBe(4100);
    expect((await failure(provider, "eth_sendTransaction", [{ from: account, data: increment }])).code).toBe(
      -32602,
    );
    // a node error comes back with the node's code
    const nodeError = await failure(provider, "eth_getBalance", ["not an address", "latest"]);
    expect(nodeError.code).not.toBe(4200);
  });

  it("an ERC-7677 paymasterService capability pays for the batch: it lands from an unfunded account", async () => {
    const paymaster = await startPaymasterService(chain);
    try {
      const other = await signInWithOtp(svc, "unfunded@example.com", { chains: chainsOf(chain) });
      const p = createEip1193Provider(other);
      const [unfunded] = (await p.request({ method: "eth_accounts" })) as Address[];
      expect(await chain.publicClient.getBalance({ address: unfunded as Address })).toBe(0n);
      const base = {
        version: "2.0.0",
        atomicRequired: true,
        calls: [{ to: chain.counter, data: increment }],
      };
      // without sponsorship: no funds
      const broke = await failure(p, "wallet_sendCalls", [base]);
      expect(broke.code).toBe(-32003);
      expect(broke.data).toMatchObject({ code: "INSUFFICIENT_FUNDS" });

      const before = await counterValue();
      const wallet = createWalletClient({
        account: unfunded as Address,
        chain: chain.chain,
        transport: custom(p),
      });
      const { id } = await wallet.sendCalls({
        calls: [
          { to: chain.counter, data: increment },
          { to: chain.counter, data: add(3n) },
        ],
        capabilities: { paymasterService: { url: paymaster.url, context: { policy: "demo" } } },
      });
      const status = await wallet.waitForCallsStatus({ id, pollingInterval: 100 });
      expect(status.statusCode).toBe(200);
      expect(await counterValue()).toBe(before + 4n);
      expect(await chain.publicClient.getBalance({ address: unfunded as Address })).toBe(0n);
      expect(paymaster.contexts).toContainEqual({ policy: "demo" });
    } finally {
      await paymaster.close();
    }
  });
});

describe("sponsorship by the service", () => {
  it("wallet_sendCalls on a chain with the app's policyId lands from an account holding no ETH", async () => {
    const apiKey = "lk_provider_key_0123456789abcdef";
    const sponsored = await startTestService({
      dev: true,
      chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster }],
      apps: [
        {
          id: "provider-app",
          name: "Provider App",
          apiKeys: [apiKey],
          allowedOrigins: ["http://provider.test"],
          sponsorship: { policies: [{ id: "pol_provider", chainId: chain.chainId }] },
        },
      ],
      logLevel: "silent",
    });
    try {
      await chain.addPaymasterSigner(await sponsored.service.paymasterSignerAddress());
      const s = createSigner({
        baseUrl: sponsored.url,
        apiKey,
        keyHolder: createMemoryKeyHolder(),
        storage: createMemoryStorage(),
        window: null,
        chains: [smartAccountChainOf(chain, { policyId: "pol_provider" })],
      });
      const email = "sponsored@example.com";
      const mailbox = devMailbox(sponsored.service);
      const sent = mailbox.count(email);
      await s.authenticate({ type: "email", email, emailMode: "otp" });
      await s.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });

      const p = createEip1193Provider(s);
      const [address] = (await p.request({ method: "eth_requestAccounts" })) as Address[];
      const wallet = createWalletClient({
        account: address as Address,
        chain: chain.chain,
        transport: custom(p),
      });
      const before = await counterValue();
      const { id } = await wallet.sendCalls({
        calls: [
          { to: chain.counter, data: increment },
          { to: chain.counter, data: add(7n) },
        ],
      });
      const status = await wallet.waitForCallsStatus({ id, pollingInterval: 100 });
      expect(status.statusCode).toBe(200);
      expect(await counterValue()).toBe(before + 8n);
      expect(await chain.publicClient.getBalance({ address: address as Address })).toBe(0n);

      // the service's paymaster named by the ERC-7677 capability (the app's credentials go with it)
      const second = await wallet.sendCalls({
        calls: [{ to: chain.counter, data: increment }],
        capabilities: {
          paymasterService: { url: `${sponsored.url}/rpc/v1`, context: { policyId: "pol_provider" } },
        },
      });
      expect((await wallet.waitForCallsStatus({ id: second.id, pollingInterval: 100 })).statusCode).toBe(200);
      expect(await counterValue()).toBe(before + 9n);
      expect(await chain.publicClient.getBalance({ address: address as Address })).toBe(0n);
    } finally {
      await sponsored.close();
    }
  });
});

describe("signing in and out", () => {
  it("signed out: eth_accounts is [] and eth_requestAccounts 4100; sign-in and sign-out fire events", async () => {
    const email = "events@example.com";
    const other = await signInWithOtp(svc, email, { chains: chainsOf(chain) });
    const p = createEip1193Provider(other);
    const [address] = (await p.request({ method: "eth_accounts" })) as Address[];
    const events: [string, unknown][] = [];
    const on = (name: string) => (payload: unknown) => events.push([name, payload]);
    const listeners = {
      accountsChanged: on("accountsChanged"),
      connect: on("connect"),
      disconnect: on("disconnect"),
    };
    p.on("accountsChanged", listeners.accountsChanged);
    p.on("connect", listeners.connect);
    p.on("disconnect", listeners.disconnect);

    await other.disconnect();
    expect(await p.request({ method: "eth_accounts" })).toEqual([]);
    expect(events[0]).toEqual(["accountsChanged", []]);
    expect(events[1]).toEqual(["disconnect", expect.objectContaining({ code: 4900 })]);
    expect((await failure(p, "eth_requestAccounts")).code).toBe(4100);
    expect((await failure(p, "personal_sign", [toHex("x"), address])).code).toBe(4100);
    expect(
      (await failure(p, "wallet_sendCalls", [{ version: "2.0.0", calls: [{ to: chain.counter }] }])).code,
    ).toBe(4100);

    // signing in again: connect, then the account
    events.length = 0;
    const sent = mailCount(svc, email);
    await other.authenticate({ type: "email", email, emailMode: "otp" });
    await other.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
    await expect.poll(() => events.length).toBe(2);
    expect(events).toEqual([
      ["connect", { chainId: numberToHex(chain.chainId) }],
      ["accountsChanged", [address]],
    ]);
    expect(await p.request({ method: "eth_accounts" })).toEqual([address]);
    p.removeListener("accountsChanged", listeners.accountsChanged);
    p.removeListener("connect", listeners.connect);
    p.removeListener("disconnect", listeners.disconnect);
    await other.disconnect();
    expect(events).toHaveLength(2); // nobody listens any more
  });

  it("eth_requestAccounts awaits requestAccounts (the sign-in modal) while signed out; 4001 when nobody signs in", async () => {
    const email = "modal@example.com";
    const other = await signInWithOtp(svc, email, { chains: chainsOf(chain) });
    const [address] = (await createEip1193Provider(other).request({ method: "eth_accounts" })) as Address[];
    await other.disconnect();

    let prompts = 0;
    const p = createEip1193Provider(other, {
      requestAccounts: async () => {
        prompts++;
        const sent = mailCount(svc, email);
        await other.authenticate({ type: "email", email, emailMode: "otp" });
        await other.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
      },
    });
    // two requests at once share one prompt
    const [a, b] = await Promise.all([
      p.request({ method: "eth_requestAccounts" }),
      p.request({ method: "eth_requestAccounts" }),
    ]);
    expect(a).toEqual([address]);
    expect(b).toEqual([address]);
    expect(prompts).toBe(1);

    await other.disconnect();
    const closed = createEip1193Provider(other, { requestAccounts: async () => {} });
    expect((await failure(closed, "eth_requestAccounts")).code).toBe(4001);
    const cancelled = createEip1193Provider(other, {
      requestAccounts: () => Promise.reject(new Error("modal closed")),
    });
    expect((await failure(cancelled, "eth_requestAccounts")).code).toBe(4001);
  });

  it("with no requestAccounts, eth_requestAccounts awaits the signer's sign-in prompt (<LatchkeyProvider>'s modal) while one is set", async () => {
    const email = "prompt@example.com";
    const other = await signInWithOtp(svc, email, { chains: chainsOf(chain) });
    const [address] = (await createEip1193Provider(other).request({ method: "eth_accounts" })) as Address[];
    await other.disconnect();

    const p = createEip1193Provider(other);
    // Nothing set: 4100, and the message names the three ways.
    const unset = await failure(p, "eth_requestAccounts");
    expect(unset.code).toBe(4100);
    expect(unset.message).toContain("<LatchkeyProvider signer={signer}>");

    let prompts = 0;
    const off = setSignInPrompt(other, async () => {
      prompts++;
      const sent = mailCount(svc, email);
      await other.authenticate({ type: "email", email, emailMode: "otp" });
      await other.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) });
    });
    expect(await p.request({ method: "eth_requestAccounts" })).toEqual([address]);
    expect(prompts).toBe(1);

    // The provider's own option wins over the signer's prompt; a closed modal is 4001.
    await other.disconnect();
    const own = createEip1193Provider(other, {
      requestAccounts: () => Promise.reject(new Error("modal closed")),
    });
    expect((await failure(own, "eth_requestAccounts")).code).toBe(4001);
    expect(prompts).toBe(1);

    // Taken away (the provider unmounted): 4100 again, and a later prompt's `off` leaves the newer one.
    off();
    expect((await failure(p, "eth_requestAccounts")).code).toBe(4100);
    const newer = setSignInPrompt(other, () => Promise.reject(new Error("closed")));
    off();
    expect((await failure(p, "eth_requestAccounts")).code).toBe(4001);
    newer();
  });
});

describe("EIP-6963", () => {
  it("announces the provider once and again on every request, until stopped", () => {
    const win = new EventTarget();
    const announced: { info: Eip6963ProviderInfo; provider: unknown }[] = [];
    win.addEventListener("eip6963:announceProvider", (event) => {
      announced.push((event as CustomEvent).detail);
    });
    const stop = announceEip1193Provider(provider, { window: win });
    expect(announced).toHaveLength(1);
    const [detail] = announced;
    expect(detail?.provider).toBe(provider);
    expect(detail?.info).toMatchObject({ name: "Latchkey", rdns: "dev.latchkey" });
    expect(detail?.info.uuid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(detail?.info.icon).toMatch(/^data:image\/svg\+xml,/);
    expect(Object.isFrozen(detail)).toBe(true);
    expect(Object.isFrozen(detail?.info)).toBe(true);

    win.dispatchEvent(new Event("eip6963:requestProvider"));
    expect(announced).toHaveLength(2);
    expect(announced[1]).toBe(detail); // the same frozen detail, the same uuid
    stop();
    win.dispatchEvent(new Event("eip6963:requestProvider"));
    expect(announced).toHaveLength(2);

    // outside a browser (no window), nothing happens
    expect(typeof (globalThis as { window?: unknown }).window).toBe("undefined");
    expect(announceEip1193Provider(provider)).toBeTypeOf("function");
  });
});

/**
 * An ERC-7677 paymaster service over HTTP (`pm_getPaymasterStubData`, `pm_getPaymasterData`) backed by
 * the stack's SingletonPaymasterV8 (verifying mode) and a fresh signer the paymaster accepts; it records
 * the context each call brought.
 */
async function startPaymasterService(stack: ChainStack) {
  const { singletonPaymasters } = await mockPaymasterModules();
  const key = privateKeyToAccount(generatePrivateKey());
  await stack.addPaymasterSigner(key.address);
  const signerClient = createWalletClient({
    account: key,
    chain: stack.chain,
    transport: http(stack.rpcUrl),
  });
  const mode = { mode: "verifying" } as const;
  const contexts: unknown[] = [];
  const handle = async (method: string, params: unknown[]) => {
    contexts.push(params[3]);
    if (method === "pm_getPaymasterStubData") {
      const stub = singletonPaymasters.getDummyPaymasterData({
        is06: false,
        paymaster: stack.paymaster,
        paymasterMode: mode,
      });
      return {
        ...stub,
        paymasterVerificationGasLimit: numberToHex(50_000n),
        paymasterPostOpGasLimit: numberToHex(100_000n),
        isFinal: false,
      };
    }
    if (method === "pm_getPaymasterData") {
      const userOp = formatUserOperation(params[0] as never) as UserOperation;
      return singletonPaymasters.getSignedPaymasterData({
        publicClient: stack.publicClient,
        signer: signerClient as never,
        userOp: { ...userOp, signature: "0x" } as UserOperation,
        paymaster: stack.paymaster,
        paymasterMode: mode,
      });
    }
    throw new Error(`unknown method ${method}`);
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", async () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      try {
        const result = await handle(method, params);
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
      } catch (error) {
        res.end(
          JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: (error as Error).message } }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    contexts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("without a bundler (the plain wallet)", () => {
  it("answers the EOA and sends a plain transaction signed by the service; wallet_sendCalls names bundlerUrl", async () => {
    const plain = await signInWithOtp(svc, "plain-provider@example.com");
    const eoa = plain.getState().user?.address as Address;
    const p = createEip1193Provider(plain, { chains: [{ chain: chain.chain, rpcUrl: chain.rpcUrl }] });
    expect(await p.request({ method: "eth_accounts" })).toEqual([eoa]);
    expect(await p.request({ method: "eth_chainId" })).toBe(numberToHex(chain.chainId));
    const refused = await failure(p, "wallet_sendCalls", [
      { version: "2.0.0", calls: [{ to: chain.counter }] },
    ]);
    expect(refused.code).toBe(4200);
    expect(refused.message).toContain("bundlerUrl");

    await chain.fund(eoa, parseEther("1"));
    const wallet = createWalletClient({ account: eoa, chain: chain.chain, transport: custom(p) });
    const before = await counterValue();
    const hash = await wallet.sendTransaction({ to: chain.counter, data: increment });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(eoa.toLowerCase());
    expect(await counterValue()).toBe(before + 1n);
  });

  it("with no chain at all, eth_requestAccounts fails before the sign-in modal opens, naming the settings", async () => {
    const plain = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    let prompts = 0;
    const p = createEip1193Provider(plain, {
      requestAccounts: async () => {
        prompts++;
      },
    });
    const error = await failure(p, "eth_requestAccounts");
    expect(error.code).toBe(4900);
    expect(error.message).toContain("chains");
    expect(error.message).toContain("bundlerUrl");
    expect(prompts).toBe(0);
  });
});
