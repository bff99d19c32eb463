/**
 * Gas sponsorship served by the service (ERC-7677 at /rpc/v1), on a real chain: hardhat with EntryPoint
 * v0.8, SimpleAccountFactory and Pimlico's SingletonPaymasterV8, alto as the bundler. Users sign up by
 * email; their embedded wallet (through @latchkey/core) owns a SimpleAccount that holds no ETH.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  type SignerOptions,
  sendUserOperation,
  toViemAccount,
  waitForUserOperationTransaction,
} from "@latchkey/core";
import { RpcErrorCode, SponsorshipErrorCode, signerRoutes } from "@latchkey/protocol";
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import {
  type Address,
  concat,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type LocalAccount,
  numberToHex,
  toFunctionSelector,
} from "viem";
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint08Abi,
  type SmartAccount,
} from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type ChainStack,
  counterAbi,
  mockPaymasterModules,
  smartAccountChainOf,
} from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import type { Service } from "../src/createService";
import { Keyring } from "../src/crypto/keyring";
import { signedPaymasterData } from "../src/features/sponsorship/evm/paymasterData";
import { freshDatabase } from "./helpers";
import { type LatchkeyIo, latchkey } from "./helpers/latchkey";

const API_KEY = "lk_sponsor_key_0123456789abcdef";
const INCREMENT = toFunctionSelector("increment()");

let stack: ChainStack;

beforeAll(async () => {
  stack = await sharedChainStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

function sponsorApp(): AppConfig {
  return {
    id: "sponsor-app",
    name: "Sponsor App",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://sponsor.test"],
    sponsorship: {
      policies: [
        {
          id: "pol_counter",
          chainId: stack.chainId,
          allowedTargets: [{ address: stack.counter, selectors: [INCREMENT] }],
          limits: {
            operationsPerUserPerDay: 2,
            gasPerOperation: 3_000_000,
            weiPerOperation: "10000000000000000",
          },
        },
        { id: "pol_open", chainId: stack.chainId },
        { id: "pol_quota", chainId: stack.chainId, limits: { operationsPerUserPerDay: 3 } },
        { id: "pol_per_user", chainId: stack.chainId, limits: { operationsPerUserPerDay: 2 } },
        { id: "pol_tiny_gas", chainId: stack.chainId, limits: { gasPerOperation: 1000 } },
        { id: "pol_app_budget", chainId: stack.chainId, limits: { weiPerAppPerDay: "1000000" } },
        { id: "pol_other_chain", chainId: 1 },
        // Room for two operations of userOperation()'s gas at 2 gwei (1.02e15 wei each), not three.
        { id: "pol_user_wei", chainId: stack.chainId, limits: { weiPerUserPerDay: "2100000000000000" } },
        { id: "pol_app_wei", chainId: stack.chainId, limits: { weiPerAppPerDay: "2100000000000000" } },
      ],
    },
  };
}

/** The reason (`error.data.code`) and JSON-RPC code somewhere in an error's cause chain, as viem wraps it. */
/** The paymaster key's row as stored, and the key it opens to. */
async function storedPaymasterKey(service: Service) {
  const row = await service.ctx.db
    .selectFrom("service_keys")
    .selectAll()
    .where("purpose", "=", "paymaster")
    .executeTakeFirstOrThrow();
  return { row, key: await service.ctx.keyring.open(row.sealed_key, `service_key:${row.id}`) };
}

function rpcReason(e: unknown): { code?: number; reason?: string } {
  let x = e as { cause?: unknown; code?: unknown; data?: unknown } | undefined;
  while (x) {
    const data = x.data as { code?: unknown } | undefined;
    if (data && typeof data === "object" && typeof data.code === "string")
      return { code: x.code as number, reason: data.code };
    x = x.cause as typeof x;
  }
  return {};
}

async function rejection(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    return rpcReason(e);
  }
  throw new Error("expected a refusal");
}

describe.each(["sqlite", "postgres"] as const)("gas sponsorship (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  const masterKey = randomBytes(32);
  let signerAddress: Address;

  const start = () =>
    startTestService({
      db: database.url,
      masterKey,
      dev: true,
      chains: [
        { chainId: stack.chainId, rpcUrl: stack.rpcUrl, paymaster: stack.paymaster },
        // a chain without a paymaster: nothing is sponsored there
        { chainId: 1, rpcUrl: "http://127.0.0.1:9" },
      ],
      apps: [sponsorApp()],
      logLevel: "silent",
    });

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await start();
    signerAddress = await svc.service.paymasterSignerAddress();
    await stack.addPaymasterSigner(signerAddress);
  });
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  async function signIn(
    email: string,
    apiKey = API_KEY,
    options: Partial<SignerOptions> = {},
  ): Promise<Signer> {
    const signer = createSigner({
      baseUrl: svc.url,
      apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      // The client's smart account is a SimpleAccount here unless a test says otherwise (7702: below).
      smartAccount: { kind: "4337" },
      ...options,
    });
    const mailbox = devMailbox(svc.service);
    const sent = mailbox.count(email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    await signer.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });
    return signer;
  }

  /** A SimpleAccount v0.8 owned by `owner` (an embedded wallet through core, or any key). */
  function smartAccount(owner: LocalAccount) {
    return SimpleSmartAccount.toSimpleSmartAccount({
      client: stack.publicClient,
      owner,
      entryPoint: { address: stack.entryPoint, version: "0.8" },
    });
  }

  /** The `X-Stamp` of `by`'s session over `body`: the proof that a request comes from that user. */
  async function stampOf(by: Signer, body: string): Promise<Record<string, string>> {
    const { stampHeaderName, stampHeaderValue } = await by.client.keyHolder.stamp(body);
    return { [stampHeaderName]: stampHeaderValue };
  }

  /** viem's bundler client with the service as paymaster; its requests stamped by `by`'s session, if given. */
  function bundler(account: SmartAccount, policyId: string, by?: Signer) {
    return createBundlerClient({
      account,
      client: stack.publicClient,
      transport: http(stack.bundlerUrl),
      pollingInterval: 100,
      paymaster: createPaymasterClient({
        transport: http(`${svc.url}/rpc/v1`, {
          fetchOptions: { headers: { authorization: `Bearer ${API_KEY}` } },
          ...(by
            ? {
                fetchFn: async (input: string | URL | Request, init?: RequestInit) => {
                  const headers = new Headers(init?.headers);
                  for (const [k, v] of Object.entries(await stampOf(by, String(init?.body))))
                    headers.set(k, v);
                  return fetch(input, { ...init, headers });
                },
              }
            : {}),
          retryCount: 0,
        }),
      }),
      paymasterContext: { policyId },
    });
  }

  const counterNumber = () =>
    stack.publicClient.readContract({ address: stack.counter, abi: counterAbi, functionName: "number" });
  const increment = () => ({ to: stack.counter, abi: counterAbi, functionName: "increment" }) as const;

  /** A raw call to `/rpc/v1` with the app's key; stamped by `by`'s session when given. */
  async function rpc(body: unknown, headers: Record<string, string> = {}, url = svc.url, by?: Signer) {
    const sent = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${url}/rpc/v1`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${API_KEY}`,
        ...(by ? await stampOf(by, sent) : {}),
        ...headers,
      },
      body: sent,
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /** An unpacked v0.8 user operation as viem sends it, for `account` (gas values fixed, not estimated). */
  async function userOperation(account: SmartAccount, nonce: bigint, callData?: Hex) {
    const deployed = (await stack.publicClient.getCode({ address: account.address })) !== undefined;
    const factory = deployed ? {} : await account.getFactoryArgs();
    return {
      sender: account.address,
      nonce: numberToHex(nonce),
      ...factory,
      callData:
        callData ??
        (await account.encodeCalls([{ to: stack.counter, data: encodeFunctionData(increment()) }])),
      callGasLimit: numberToHex(100_000n),
      verificationGasLimit: numberToHex(300_000n),
      preVerificationGas: numberToHex(60_000n),
      maxFeePerGas: numberToHex(2_000_000_000n),
      maxPriorityFeePerGas: numberToHex(1_000_000_000n),
      signature: await account.getStubSignature(),
    };
  }

  const pmCall = (method: string, op: unknown, policyId: string, id: number | string = 1) => ({
    jsonrpc: "2.0",
    id,
    method,
    params: [op, stack.entryPoint, numberToHex(stack.chainId), { policyId }],
  });

  const spendRows = (sender: Address) =>
    svc.service.ctx.db
      .selectFrom("sponsorship_spend")
      .selectAll()
      .where("sender", "=", sender.toLowerCase())
      .execute();

  let alice: Signer;
  let aliceAccount: SmartAccount;

  it("sponsors an operation of a user's account that holds no ETH: it lands, the account pays nothing, the spend is recorded", async () => {
    alice = await signIn(`alice-${kind}@example.com`);
    aliceAccount = await smartAccount(toViemAccount(alice));
    expect(await stack.publicClient.getBalance({ address: aliceAccount.address })).toBe(0n);
    const deposit = () =>
      stack.publicClient.readContract({
        address: stack.entryPoint,
        abi: entryPoint08Abi,
        functionName: "balanceOf",
        args: [stack.paymaster],
      });
    const depositBefore = await deposit();
    const before = await counterNumber();

    const client = bundler(aliceAccount, "pol_counter", alice);
    const hash = await client.sendUserOperation({ calls: [increment()] });
    const receipt = await client.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(receipt.paymaster).toBe(stack.paymaster);
    expect(await counterNumber()).toBe(before + 1n);
    expect(await stack.publicClient.getBalance({ address: aliceAccount.address })).toBe(0n);
    expect(await deposit()).toBeLessThan(depositBefore);

    const rows = await spendRows(aliceAccount.address);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({ app_id: "sponsor-app", policy_id: "pol_counter", chain_id: stack.chainId });
    expect(row?.user_id).toBe(alice.user?.userId);
    // The reservation is the most the operation could cost: at least what it did cost (the receipt's
    // cost, not the deposit's fall: other files' operations share the chain stack's paymaster).
    expect(receipt.actualGasCost).toBeGreaterThan(0n);
    expect(BigInt(row?.wei ?? 0)).toBeGreaterThanOrEqual(receipt.actualGasCost);
  });

  it("refuses an operation past the policy's operations per user per day, with the reason viem's caller sees", async () => {
    const client = bundler(aliceAccount, "pol_counter", alice);
    const second = await client.sendUserOperation({ calls: [increment()] });
    expect((await client.waitForUserOperationReceipt({ hash: second })).success).toBe(true);
    const before = await counterNumber();
    expect(await rejection(client.sendUserOperation({ calls: [increment()] }))).toEqual({
      code: RpcErrorCode.LIMIT_EXCEEDED,
      reason: SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED,
    });
    expect(await counterNumber()).toBe(before);
    expect(await spendRows(aliceAccount.address)).toHaveLength(2);
    // The signing call refuses too (not only the stub), and says which limit and until when.
    const refused = await rpc(
      pmCall("pm_getPaymasterData", await userOperation(aliceAccount, 2n), "pol_counter"),
      {},
      svc.url,
      alice,
    );
    expect(refused.status).toBe(200);
    expect(refused.json.error).toMatchObject({
      code: -32005,
      data: { code: "DAILY_LIMIT_EXCEEDED", limit: "operationsPerUserPerDay", max: "2" },
    });
    expect(refused.json.error.data.resetsAt).toMatch(/T00:00:00.000Z$/);
  });

  it("charges a user's daily limit only to requests that user stamped: the app's key alone or another user's session cannot use it up (W4)", async () => {
    const chains = [smartAccountChainOf(stack, { policyId: "pol_per_user" })];
    const victim = await signIn(`victim-${kind}@example.com`, API_KEY, { chains });
    const account = await smartAccount(toViemAccount(victim));
    const mallory = await signIn(`mallory-${kind}@example.com`);
    // Operations for the victim's account that can never land (only the victim can sign them), asked for
    // as many times as the victim's daily limit: with the publishable key alone, and under another
    // user's session. None is signed, none is charged.
    for (const nonce of [1n, 2n, 3n]) {
      const op = await userOperation(account, nonce << 64n);
      for (const method of ["pm_getPaymasterData", "pm_getPaymasterStubData"]) {
        const byKey = await rpc(pmCall(method, op, "pol_per_user"));
        expect(byKey.json.error).toMatchObject({ code: -32003, data: { code: "USER_STAMP_REQUIRED" } });
        const byOther = await rpc(pmCall(method, op, "pol_per_user"), {}, svc.url, mallory);
        expect(byOther.json.error).toMatchObject({ code: -32003, data: { code: "STAMP_USER_MISMATCH" } });
      }
    }
    // A stamp must verify over the exact body, and be a session of this app's users.
    const op = await userOperation(account, 4n << 64n);
    const body = JSON.stringify(pmCall("pm_getPaymasterData", op, "pol_per_user"));
    const forged = await rpc(body, await stampOf(victim, `${body} `));
    expect(forged).toMatchObject({ status: 401, json: { code: "INVALID_STAMP" } });
    const devUser = await signIn(`dev-w4-${kind}@example.com`, svc.devApiKey);
    expect(await rpc(body, await stampOf(devUser, body))).toMatchObject({ status: 403 });
    expect(await spendRows(account.address)).toHaveLength(0);
    const usage = () =>
      svc.service.ctx.db
        .selectFrom("sponsorship_usage")
        .selectAll()
        .where("policy_id", "=", "pol_per_user")
        .where("scope", "=", `user:${victim.user?.userId}`)
        .executeTakeFirst();
    expect(await usage()).toBeUndefined();

    // The victim's own operations, through the shipped client (which stamps them), are sponsored and land:
    // the whole daily allowance is theirs; the next is refused by it.
    const before = await counterNumber();
    for (let i = 0; i < 2; i++) {
      const { hash } = await sendUserOperation(victim, {
        uo: { target: stack.counter, data: encodeFunctionData(increment()) },
      });
      await waitForUserOperationTransaction(victim, { hash });
    }
    expect(await counterNumber()).toBe(before + 2n);
    expect(await stack.publicClient.getBalance({ address: account.address })).toBe(0n);
    expect(await usage()).toMatchObject({ operations: 2 });
    const third = await sendUserOperation(victim, {
      uo: { target: stack.counter, data: encodeFunctionData(increment()) },
    }).catch((e: unknown) => e);
    expect(rpcReason(third)).toEqual({
      code: RpcErrorCode.LIMIT_EXCEEDED,
      reason: SponsorshipErrorCode.DAILY_LIMIT_EXCEEDED,
    });
    // A policy without per-user limits sponsors a request that proves no user (its app limits hold).
    const open = await rpc(pmCall("pm_getPaymasterStubData", op, "pol_open"));
    expect(open.json.result.paymaster).toBe(stack.paymaster);
  });

  it("refuses a call to a target outside the allow-list, and a function the policy does not list", async () => {
    const bob = await signIn(`bob-${kind}@example.com`);
    const account = await smartAccount(toViemAccount(bob));
    const client = bundler(account, "pol_counter");
    const elsewhere = privateKeyToAddress(generatePrivateKey());
    expect(await rejection(client.sendUserOperation({ calls: [{ to: elsewhere, value: 0n }] }))).toEqual({
      code: RpcErrorCode.TRANSACTION_REJECTED,
      reason: SponsorshipErrorCode.TARGET_NOT_ALLOWED,
    });
    const add = { to: stack.counter, abi: counterAbi, functionName: "add", args: [5n] } as const;
    expect(await rejection(client.sendUserOperation({ calls: [add] }))).toEqual({
      code: RpcErrorCode.TRANSACTION_REJECTED,
      reason: SponsorshipErrorCode.SELECTOR_NOT_ALLOWED,
    });
    // One allowed call does not carry a refused one in a batch.
    expect(await rejection(client.sendUserOperation({ calls: [increment(), add] }))).toMatchObject({
      reason: SponsorshipErrorCode.SELECTOR_NOT_ALLOWED,
    });
    // Call data that is not execute/executeBatch cannot be checked: refused under an allow-list.
    const raw = await rpc(
      pmCall("pm_getPaymasterData", await userOperation(account, 0n, "0xdeadbeef"), "pol_counter"),
    );
    expect(raw.json.error).toMatchObject({ code: -32003, data: { code: "CALL_DATA_NOT_ALLOWED" } });
    expect(await spendRows(account.address)).toHaveLength(0);
  });

  it("refuses an unknown policy, a missing one, another chain's and another EntryPoint", async () => {
    const account = await smartAccount(toViemAccount(alice));
    expect(await rejection(bundler(account, "pol_nope").sendUserOperation({ calls: [increment()] }))).toEqual(
      {
        code: RpcErrorCode.INVALID_PARAMS,
        reason: SponsorshipErrorCode.POLICY_NOT_FOUND,
      },
    );
    const op = await userOperation(account, 5n);
    const missing = await rpc({
      ...pmCall("pm_getPaymasterStubData", op, "x"),
      params: [op, stack.entryPoint, "0x7a69"],
    });
    expect(missing.json.error).toMatchObject({ code: -32602, message: /policyId is required/ });
    const otherChain = await rpc({
      ...pmCall("pm_getPaymasterStubData", op, "pol_counter"),
      params: [op, stack.entryPoint, "0x1", { policyId: "pol_counter" }],
    });
    expect(otherChain.json.error).toMatchObject({ code: -32602, data: { code: "WRONG_CHAIN" } });
    const notConfigured = await rpc({
      ...pmCall("pm_getPaymasterStubData", op, "pol_other_chain"),
      params: [op, stack.entryPoint, "0x1", { policyId: "pol_other_chain" }],
    });
    expect(notConfigured.json.error).toMatchObject({
      code: -32002,
      data: { code: "SPONSORSHIP_UNAVAILABLE" },
    });
    const v07 = await rpc({
      ...pmCall("pm_getPaymasterStubData", op, "pol_counter"),
      params: [op, "0x0000000071727De22E5E9d8BAf0edAc6f37da032", "0x7a69", { policyId: "pol_counter" }],
    });
    expect(v07.json.error).toMatchObject({ code: -32602, data: { code: "UNSUPPORTED_ENTRY_POINT" } });
  });

  it("refuses a sender that is not a user's account of this app: a stranger's, another app's user's, a contract that is no account", async () => {
    const stranger = await smartAccount(privateKeyToAccount(generatePrivateKey()));
    expect(
      await rejection(bundler(stranger, "pol_open").sendUserOperation({ calls: [increment()] })),
    ).toEqual({
      code: RpcErrorCode.TRANSACTION_REJECTED,
      reason: SponsorshipErrorCode.UNKNOWN_SENDER,
    });
    // A user of the dev app, whose owner is an embedded wallet of this service but not of this app.
    const devUser = await signIn(`dev-${kind}@example.com`, svc.devApiKey);
    const devAccount = await smartAccount(toViemAccount(devUser));
    const answer = await rpc(pmCall("pm_getPaymasterData", await userOperation(devAccount, 0n), "pol_open"));
    expect(answer.json.error).toMatchObject({ code: -32003, data: { code: "UNKNOWN_SENDER" } });
    // A sender whose factory data claims an owner that does not make that address.
    const op = await userOperation(aliceAccount, 0n);
    const forged = await rpc(
      pmCall(
        "pm_getPaymasterStubData",
        { ...op, ...(await stranger.getFactoryArgs()), sender: stranger.address },
        "pol_open",
      ),
    );
    expect(forged.json.error).toMatchObject({ code: -32003, data: { code: "UNKNOWN_SENDER" } });
    const mismatched = await rpc(
      pmCall("pm_getPaymasterStubData", { ...op, ...(await stranger.getFactoryArgs()) }, "pol_open"),
    );
    expect(mismatched.json.error).toMatchObject({ code: -32003, data: { code: "UNSUPPORTED_ACCOUNT" } });
    // A contract that is not a SimpleAccount (the Counter has no owner()).
    const counterAsSender = await rpc(
      pmCall("pm_getPaymasterStubData", { ...op, sender: stack.counter }, "pol_open"),
    );
    expect(counterAsSender.json.error).toMatchObject({ code: -32003, data: { code: "UNSUPPORTED_ACCOUNT" } });
    expect(await spendRows(stranger.address)).toHaveLength(0);
  });

  /** A v0.8 user operation of a 7702 account (the EOA `sender`), carrying `eip7702Auth` when given. */
  async function userOperation7702(sender: Address, eip7702Auth?: Record<string, Hex>) {
    return {
      sender,
      nonce: numberToHex(0n),
      callData: encodeFunctionData({
        abi: [
          {
            type: "function",
            name: "execute",
            inputs: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }],
            outputs: [],
            stateMutability: "nonpayable",
          },
        ],
        functionName: "execute",
        args: [stack.counter, 0n, encodeFunctionData(increment())],
      }),
      callGasLimit: numberToHex(100_000n),
      verificationGasLimit: numberToHex(300_000n),
      preVerificationGas: numberToHex(60_000n),
      maxFeePerGas: numberToHex(2_000_000_000n),
      maxPriorityFeePerGas: numberToHex(1_000_000_000n),
      signature: `0x${"11".repeat(65)}` as Hex,
      ...(eip7702Auth ? { eip7702Auth } : {}),
    };
  }
  const rpcAuthorization = (address: Address) => ({
    address,
    chainId: numberToHex(stack.chainId),
    nonce: "0x0" as Hex,
    r: `0x${"ff".repeat(32)}` as Hex,
    s: `0x${"7a".repeat(32)}` as Hex,
    yParity: "0x1" as Hex,
  });

  it("sponsors a 7702 account: a user's 0-ETH EOA, delegated to Simple7702Account by its first operation's authorization; charged to that user only", async () => {
    const erin = await signIn(`erin-${kind}@example.com`, API_KEY, { smartAccount: { kind: "7702" } });
    const owner = toViemAccount(erin);
    const account = await SimpleSmartAccount.to7702SimpleSmartAccount({
      client: stack.publicClient,
      owner,
      entryPoint: { address: stack.entryPoint, version: "0.8" },
    });
    expect(account.address).toBe(owner.address);
    expect(await stack.publicClient.getCode({ address: owner.address })).toBeUndefined();
    const sign = owner.signAuthorization as NonNullable<LocalAccount["signAuthorization"]>;
    const authorization = await sign({
      chainId: stack.chainId,
      address: stack.simple7702Account,
      nonce: await stack.publicClient.getTransactionCount({ address: owner.address }),
    });
    const before = await counterNumber();
    const client = bundler(account, "pol_quota", erin);
    const first = await client.sendUserOperation({ calls: [increment()], authorization });
    expect((await client.waitForUserOperationReceipt({ hash: first })).success).toBe(true);
    expect((await stack.publicClient.getCode({ address: owner.address }))?.toLowerCase()).toBe(
      concat(["0xef0100", stack.simple7702Account]).toLowerCase(),
    );
    // The next operation goes without an authorization: the sender's code says what it is.
    const second = await client.sendUserOperation({ calls: [increment()] });
    expect((await client.waitForUserOperationReceipt({ hash: second })).success).toBe(true);
    expect(await counterNumber()).toBe(before + 2n);
    expect(await stack.publicClient.getBalance({ address: owner.address })).toBe(0n);
    const rows = await spendRows(owner.address);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.user_id === erin.user?.userId)).toBe(true);
    // Another user's session cannot have the operation charged to them, nor ask for it as erin.
    const op = await userOperation7702(owner.address);
    const byAlice = await rpc(pmCall("pm_getPaymasterStubData", op, "pol_quota"), {}, svc.url, alice);
    expect(byAlice.json.error).toMatchObject({ code: -32003, data: { code: "STAMP_USER_MISMATCH" } });
  });

  it("records the smart-account kind a user first gets: the first one a signed whoami proposes stays", async () => {
    const gina = await signIn(`gina-${kind}@example.com`);
    const orgId = gina.user?.orgId as string;
    const whoami = async (smartAccountKind?: string) => {
      const stampedRequest = await gina.client.stampRequest("/public/v1/query/whoami", {
        type: "QUERY_TYPE_WHOAMI",
        organizationId: orgId,
        ...(smartAccountKind ? { smartAccountKind } : {}),
      });
      return gina.client.call(signerRoutes.whoami, { stampedRequest });
    };
    expect((await whoami()).smartAccountKind).toBeUndefined();
    expect((await whoami("nonsense")).smartAccountKind).toBeUndefined();
    // A new 4337 user gets a LatchkeySimpleAccount (ERC-1271).
    expect(await whoami("4337")).toMatchObject({
      smartAccountKind: "4337",
      smartAccountContract: "LatchkeySimpleAccount",
    });
    // The app's default changed: the user keeps the kind recorded.
    expect(await whoami("7702")).toMatchObject({
      smartAccountKind: "4337",
      smartAccountContract: "LatchkeySimpleAccount",
    });
    const row = await svc.service.ctx.db
      .selectFrom("users")
      .select("smart_account_kind")
      .where("id", "=", gina.user?.userId as string)
      .executeTakeFirstOrThrow();
    expect(row.smart_account_kind).toBe("4337-latchkey");
    // A user recorded "4337" (every user from before 7702 accounts) keeps the SimpleAccount.
    await svc.service.ctx.db
      .updateTable("users")
      .set({ smart_account_kind: "4337" })
      .where("id", "=", gina.user?.userId as string)
      .execute();
    expect(await whoami("4337")).toMatchObject({
      smartAccountKind: "4337",
      smartAccountContract: "SimpleAccount",
    });
  });

  it("refuses a 7702 sender delegating elsewhere (on chain, or by its authorization), and an EOA that is no user of this app", async () => {
    const frank = await signIn(`frank-${kind}@example.com`, API_KEY, { smartAccount: { kind: "7702" } });
    const eoa = toViemAccount(frank).address;
    const elsewhere = await rpc(
      pmCall(
        "pm_getPaymasterStubData",
        await userOperation7702(eoa, rpcAuthorization(stack.counter)),
        "pol_open",
      ),
      {},
      svc.url,
      frank,
    );
    expect(elsewhere.json.error).toMatchObject({ code: -32003, data: { code: "UNSUPPORTED_ACCOUNT" } });
    expect(elsewhere.json.error.message).toContain("allowedImplementations");
    // An EOA that is not an embedded wallet of this app's users, authorizing the right delegate.
    const strangerKey = privateKeyToAccount(generatePrivateKey());
    const stranger = await rpc(
      pmCall(
        "pm_getPaymasterData",
        await userOperation7702(strangerKey.address, rpcAuthorization(stack.simple7702Account)),
        "pol_open",
      ),
    );
    expect(stranger.json.error).toMatchObject({ code: -32003, data: { code: "UNKNOWN_SENDER" } });
    // An EOA whose code delegates (on chain) to another contract than Simple7702Account.
    await stack.fund(strangerKey.address, 10n ** 17n);
    const wallet = createWalletClient({
      account: strangerKey,
      chain: stack.chain,
      transport: http(stack.rpcUrl),
    });
    const delegateElsewhere = await wallet.signAuthorization({
      contractAddress: stack.counter,
      executor: "self",
    });
    const tx = await wallet.sendTransaction({
      // another address: the Counter (the EOA's code now) has no fallback to take an empty call
      to: privateKeyToAddress(generatePrivateKey()),
      authorizationList: [delegateElsewhere],
    });
    await stack.publicClient.waitForTransactionReceipt({ hash: tx });
    expect((await stack.publicClient.getCode({ address: strangerKey.address }))?.toLowerCase()).toBe(
      concat(["0xef0100", stack.counter]).toLowerCase(),
    );
    const onChain = await rpc(
      pmCall("pm_getPaymasterStubData", await userOperation7702(strangerKey.address), "pol_open"),
    );
    expect(onChain.json.error).toMatchObject({ code: -32003, data: { code: "UNSUPPORTED_ACCOUNT" } });
    expect(onChain.json.error.message).toContain("delegates to");
    expect(await spendRows(eoa)).toHaveLength(0);
    expect(await spendRows(strangerKey.address)).toHaveLength(0);
  });

  it("answers stub data for gas estimation, recording nothing", async () => {
    const carol = await signIn(`carol-${kind}@example.com`);
    const account = await smartAccount(toViemAccount(carol));
    const op = await userOperation(account, 0n);
    const { status, json } = await rpc(
      pmCall("pm_getPaymasterStubData", op, "pol_counter", "stub-1"),
      {},
      svc.url,
      carol,
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({
      jsonrpc: "2.0",
      id: "stub-1",
      result: {
        paymaster: stack.paymaster,
        paymasterVerificationGasLimit: expect.stringMatching(/^0x[0-9a-f]+$/),
        paymasterPostOpGasLimit: expect.stringMatching(/^0x[0-9a-f]+$/),
        isFinal: false,
        sponsor: { name: "Sponsor App" },
      },
    });
    // mode byte, validUntil, validAfter, then a 65-byte signature: as long as the real thing.
    expect(json.result.paymasterData).toMatch(/^0x01[0-9a-f]{24}[0-9a-f]{130}$/);
    expect(await spendRows(account.address)).toHaveLength(0);
    // The stub leaves gas unchecked (it is not known yet); the signing call checks it.
    const tiny = await rpc(pmCall("pm_getPaymasterStubData", op, "pol_tiny_gas"));
    expect(tiny.json.result.paymaster).toBe(stack.paymaster);
    const refused = await rpc(pmCall("pm_getPaymasterData", op, "pol_tiny_gas"));
    expect(refused.json.error).toMatchObject({
      code: -32003,
      data: { code: "OPERATION_LIMIT_EXCEEDED", limit: "gasPerOperation", max: "1000" },
    });
    const budget = await rpc(pmCall("pm_getPaymasterData", op, "pol_app_budget"));
    expect(budget.json.error).toMatchObject({
      code: -32005,
      data: { code: "DAILY_LIMIT_EXCEEDED", limit: "weiPerAppPerDay" },
    });
    expect(await spendRows(account.address)).toHaveLength(0);
  });

  // On PostgreSQL two instances share the database. Two SQLite instances in one process cannot: the driver
  // is synchronous, so one waiting for the other's write lock would hold the event loop the other needs.
  it("holds a daily limit across instances under concurrent requests; a retried operation replaces its reservation", async () => {
    const dave = await signIn(`dave-${kind}@example.com`);
    const account = await smartAccount(toViemAccount(dave));
    const second = kind === "postgres" ? await start() : svc;
    try {
      // Six different operations of one user at once, three to each instance; the policy allows three a day.
      const ops = await Promise.all([0n, 1n, 2n, 3n, 4n, 5n].map((n) => userOperation(account, n << 64n)));
      const answers = await Promise.all(
        ops.map((op, i) =>
          rpc(pmCall("pm_getPaymasterData", op, "pol_quota", i), {}, i % 2 ? second.url : svc.url, dave),
        ),
      );
      const signed = answers.filter((a) => a.json.result);
      const refused = answers.filter((a) => a.json.error);
      expect(signed).toHaveLength(3);
      expect(refused.map((a) => a.json.error.data.code)).toEqual(Array(3).fill("DAILY_LIMIT_EXCEEDED"));
      expect(await spendRows(account.address)).toHaveLength(3);
      // The same operation again (a client retrying, maybe with other gas) replaces its row: still three.
      const again = ops[answers.indexOf(signed[0] as (typeof answers)[number])];
      const retried = await rpc(
        pmCall("pm_getPaymasterData", { ...again, callGasLimit: numberToHex(120_000n) }, "pol_quota"),
        {},
        svc.url,
        dave,
      );
      expect(retried.json.result.paymasterData).toMatch(/^0x01/);
      expect(await spendRows(account.address)).toHaveLength(3);
      const usage = await svc.service.ctx.db
        .selectFrom("sponsorship_usage")
        .selectAll()
        .where("policy_id", "=", "pol_quota")
        .where("scope", "=", `user:${dave.user?.userId}`)
        .executeTakeFirstOrThrow();
      expect(usage.operations).toBe(3);
      const rows = await spendRows(account.address);
      expect(BigInt(usage.wei)).toBe(rows.reduce((sum, r) => sum + BigInt(r.wei), 0n));
    } finally {
      if (second !== svc) await second.close();
    }
  });

  it.each([
    ["pol_user_wei", "weiPerUserPerDay"],
    ["pol_app_wei", "weiPerAppPerDay"],
  ])(
    "a cheaper re-ask for a signed operation never lowers its reservation: %s holds its daily wei cap",
    async (policyId, limit) => {
      const erin = await signIn(`erin-${policyId}-${kind}@example.com`);
      const account = await smartAccount(toViemAccount(erin));
      const reserved = async (nonce: bigint) =>
        (await spendRows(account.address)).find((r) => BigInt(r.nonce) === nonce && r.policy_id === policyId);
      const oneWei = { maxFeePerGas: numberToHex(1n), maxPriorityFeePerGas: numberToHex(1n) };
      const outcomes: string[] = [];
      // Eight operations, each asked for at 2 gwei, then again at 1 wei a gas: the attack that landed eight
      // dear operations under a cap for two, as each cheap re-ask gave back what the dear signature may spend.
      for (const n of [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]) {
        const op = await userOperation(account, n << 64n);
        const dear = await rpc(pmCall("pm_getPaymasterData", op, policyId), {}, svc.url, erin);
        if (dear.json.error) {
          outcomes.push(dear.json.error.data.code);
          expect(dear.json.error).toMatchObject({ code: -32005, data: { limit } });
          continue;
        }
        outcomes.push("signed");
        const costs = BigInt((await reserved(n << 64n))?.wei ?? 0);
        expect(costs).toBe(1_020_002_000_000_000n);
        const cheap = await rpc(
          pmCall("pm_getPaymasterData", { ...op, ...oneWei }, policyId),
          {},
          svc.url,
          erin,
        );
        expect(cheap.json.result.paymasterData).toMatch(/^0x01/);
        expect(BigInt((await reserved(n << 64n))?.wei ?? 0)).toBe(costs);
      }
      expect(outcomes).toEqual(["signed", "signed", ...Array(6).fill("DAILY_LIMIT_EXCEEDED")]);
      const usage = await svc.service.ctx.db
        .selectFrom("sponsorship_usage")
        .selectAll()
        .where("policy_id", "=", policyId)
        .where("scope", "=", limit === "weiPerUserPerDay" ? `user:${erin.user?.userId}` : "app")
        .executeTakeFirstOrThrow();
      expect(BigInt(usage.wei)).toBe(2_040_004_000_000_000n);
      // A dearer re-ask counts what it adds: here past the cap.
      const first = await userOperation(account, 0n);
      const dearer = await rpc(
        pmCall("pm_getPaymasterData", { ...first, maxFeePerGas: numberToHex(2_200_000_000n) }, policyId),
        {},
        svc.url,
        erin,
      );
      expect(dearer.json.error).toMatchObject({ code: -32005, data: { limit } });
    },
  );

  it("signs exactly what @pimlico/mock-paymaster signs for the same operation and key", async () => {
    const { key } = await storedPaymasterKey(svc.service);
    const signer = privateKeyToAccount(`0x${key.toString("hex")}`);
    expect(signer.address).toBe(signerAddress);
    const op = await userOperation(aliceAccount, 7n);
    const gas = { paymasterVerificationGasLimit: 50_000n, paymasterPostOpGasLimit: 1n };
    const { singletonPaymasters } = await mockPaymasterModules();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
      const theirs = await singletonPaymasters.getSignedPaymasterData({
        publicClient: stack.publicClient,
        signer: createWalletClient({ account: signer, chain: stack.chain, transport: http(stack.rpcUrl) }),
        userOp: {
          sender: op.sender,
          nonce: 7n,
          callData: op.callData,
          callGasLimit: 100_000n,
          verificationGasLimit: 300_000n,
          preVerificationGas: 60_000n,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          signature: op.signature,
          ...gas,
        },
        paymaster: stack.paymaster,
        paymasterMode: { mode: "verifying" },
      });
      const ours = await signedPaymasterData(svc.service.ctx, {
        chain: { ...svc.service.ctx.chains.get(stack.chainId), paymaster: stack.paymaster } as Parameters<
          typeof signedPaymasterData
        >[1]["chain"],
        userOperation: {
          sender: op.sender,
          nonce: 7n,
          factory: undefined,
          factoryData: undefined,
          callData: op.callData,
          callGasLimit: 100_000n,
          verificationGasLimit: 300_000n,
          preVerificationGas: 60_000n,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          paymasterVerificationGasLimit: undefined,
          paymasterPostOpGasLimit: undefined,
          signature: op.signature,
        },
        ...gas,
        validUntil: Math.floor(Date.now() / 1000) + 60_000,
      });
      expect(ours).toEqual(theirs);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers malformed JSON-RPC with JSON-RPC errors, never a 500", async () => {
    const op = await userOperation(aliceAccount, 9n);
    const cases: [unknown, number, string][] = [
      ["{not json", -32700, "INVALID_JSON"],
      ["", -32600, "INVALID_REQUEST"],
      ["[]", -32600, "INVALID_REQUEST"],
      ["42", -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "2.0", id: 1 }, -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "1.0", id: 1, method: "pm_getPaymasterStubData" }, -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "2.0", id: 1, method: 7 }, -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "2.0", id: { x: 1 }, method: "pm_getPaymasterStubData" }, -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "2.0", id: 1, method: "eth_sendTransaction", params: [] }, -32601, "METHOD_NOT_FOUND"],
      [{ jsonrpc: "2.0", id: 1, method: "pm_getPaymasterStubData", params: "x" }, -32600, "INVALID_REQUEST"],
      [{ jsonrpc: "2.0", id: 1, method: "pm_getPaymasterStubData" }, -32602, "INVALID_PARAMS"],
      [
        { jsonrpc: "2.0", id: 1, method: "pm_getPaymasterData", params: [1, 2, 3, 4] },
        -32602,
        "INVALID_PARAMS",
      ],
      [{ jsonrpc: "2.0", id: 1, method: "pm_getPaymasterData", params: { op } }, -32602, "INVALID_PARAMS"],
      [pmCall("pm_getPaymasterData", { ...op, sender: "0x1234" }, "pol_open"), -32602, "INVALID_PARAMS"],
      [pmCall("pm_getPaymasterData", { ...op, nonce: 5 }, "pol_open"), -32602, "INVALID_PARAMS"],
      [pmCall("pm_getPaymasterData", { ...op, nonce: "0x" }, "pol_open"), -32602, "INVALID_PARAMS"],
      [pmCall("pm_getPaymasterData", { ...op, callData: "0xabc" }, "pol_open"), -32602, "INVALID_PARAMS"],
      [
        pmCall("pm_getPaymasterData", { ...op, callGasLimit: `0x1${"0".repeat(32)}` }, "pol_open"),
        -32602,
        "INVALID_PARAMS",
      ],
      [
        pmCall("pm_getPaymasterData", { ...op, maxFeePerGas: undefined }, "pol_open"),
        -32602,
        "INVALID_PARAMS",
      ],
      [pmCall("pm_getPaymasterData", { ...op, initCode: "0x" }, "pol_open"), -32602, "INVALID_PARAMS"],
      [
        pmCall("pm_getPaymasterData", { ...op, factory: stack.accountFactory }, "pol_open"),
        -32602,
        "INVALID_PARAMS",
      ],
      [pmCall("pm_getPaymasterData", op, ""), -32602, "INVALID_PARAMS"],
      [pmCall("pm_getPaymasterData", "op", "pol_open"), -32602, "INVALID_PARAMS"],
      [
        {
          ...pmCall("pm_getPaymasterData", op, "pol_open"),
          params: [op, "nope", "0x7a69", { policyId: "pol_open" }],
        },
        -32602,
        "INVALID_PARAMS",
      ],
      [
        {
          ...pmCall("pm_getPaymasterData", op, "pol_open"),
          params: [op, stack.entryPoint, 31337, { policyId: "pol_open" }],
        },
        -32602,
        "INVALID_PARAMS",
      ],
      [
        {
          ...pmCall("pm_getPaymasterData", op, "pol_open"),
          params: [op, stack.entryPoint, "0x7a69", "pol_open"],
        },
        -32602,
        "INVALID_PARAMS",
      ],
      [`{"jsonrpc":"2.0","id":1,"method":"pm_getPaymasterData\\u0000"}`, -32600, "INVALID_REQUEST"],
    ];
    for (const [body, code, reason] of cases) {
      const { status, json } = await rpc(body);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(json.jsonrpc).toBe("2.0");
      expect(json.error, JSON.stringify(body)).toMatchObject({ code, data: { code: reason } });
      expect(json.error.message).toEqual(expect.any(String));
    }
    // A batch answers each call in order; notifications (no id) get no answer.
    const batch = await rpc([
      { jsonrpc: "2.0", id: "a", method: "nope" },
      { jsonrpc: "2.0", method: "pm_getPaymasterStubData", params: [] },
      pmCall("pm_getPaymasterStubData", await userOperation(aliceAccount, 10n), "pol_open", "b"),
      7,
    ]);
    expect(batch.status).toBe(200);
    expect(batch.json.map((a: { id: unknown }) => a.id)).toEqual(["a", "b", null]);
    expect(batch.json[1].result.paymaster).toBe(stack.paymaster);
    expect((await rpc({ jsonrpc: "2.0", method: "pm_getPaymasterStubData" })).status).toBe(204);
    // The app's key is required, as on the signer API; CORS answers the app's origins only.
    expect((await rpc(pmCall("pm_getPaymasterStubData", op, "pol_open"), { authorization: "" })).status).toBe(
      401,
    );
    const badKey = await rpc(pmCall("pm_getPaymasterStubData", op, "pol_open"), {
      authorization: "Bearer lk_nope_0123456789abcdef",
    });
    expect(badKey).toMatchObject({ status: 401, json: { code: "INVALID_API_KEY" } });
    const preflight = await fetch(`${svc.url}/rpc/v1`, {
      method: "OPTIONS",
      headers: { origin: "http://sponsor.test", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://sponsor.test");
    const foreign = await rpc(pmCall("pm_getPaymasterStubData", op, "pol_open"), {
      origin: "http://evil.test",
    });
    expect(foreign.status).toBe(403);
  });

  it("keeps the paymaster key sealed at rest, the same across restarts and a master-key rotation", async () => {
    const { row, key } = await storedPaymasterKey(svc.service);
    expect(row.address).toBe(signerAddress);
    expect(privateKeyToAddress(`0x${key.toString("hex")}`)).toBe(signerAddress);
    for (const encoding of ["hex", "base64", "base64url"] as const)
      expect(row.sealed_key).not.toContain(key.toString(encoding));
    expect(row.sealed_key).toMatch(/^v1\./);

    await svc.close();
    svc = await start();
    expect(await svc.service.paymasterSignerAddress()).toBe(signerAddress);

    // rotate-master-key re-wraps the data keys: the sealed key opens under the new master key.
    await svc.close();
    const newKey = randomBytes(32);
    const { openDatabase } = await import("../src/db");
    const opened = openDatabase(database.url);
    await Keyring.rotateMasterKey(opened.db, masterKey, newKey);
    await opened.close();
    newKey.copy(masterKey);
    svc = await start();
    expect(await svc.service.paymasterSignerAddress()).toBe(signerAddress);
    // … and still signs what the paymaster accepts (alice signs in again: the service moved to another port).
    const again = await smartAccount(toViemAccount(await signIn(`alice-${kind}@example.com`)));
    expect(again.address).toBe(aliceAccount.address);
    const client = bundler(again, "pol_open");
    const hash = await client.sendUserOperation({ calls: [increment()] });
    expect((await client.waitForUserOperationReceipt({ hash })).success).toBe(true);
    expect(await stack.publicClient.getBalance({ address: aliceAccount.address })).toBe(0n);
  });

  it.runIf(kind === "sqlite")(
    "prints the signer's address with `latchkey paymaster-signer`, the same every time",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "latchkey-pm-"));
      const env = { ...process.env, LATCHKEY_MASTER_KEY: "33".repeat(32) };
      const db = join(dir, "pm.db");
      // In this process, each must exit 0.
      const run = async (args: string[], io?: LatchkeyIo) => {
        const done = await latchkey(args, io);
        expect(done.code, done.stderr).toBe(0);
        return done;
      };
      const [printed, help] = await Promise.all([
        run(["paymaster-signer", "--db", db], { env }),
        run(["paymaster-signer", "--help"]),
      ]);
      const first = printed.stdout.trim();
      expect(first).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(help.stdout).toContain("Usage: latchkey paymaster-signer");
      const again = (await run(["paymaster-signer", "--db", db], { env })).stdout.trim();
      expect(again).toBe(first);
      // The service on that database signs with the same key.
      const t = await startTestService({
        db,
        masterKey: Buffer.from("33".repeat(32), "hex"),
        logLevel: "silent",
        dev: true,
      });
      try {
        expect(await t.service.paymasterSignerAddress()).toBe(first);
      } finally {
        await t.close();
      }
    },
  );
});
