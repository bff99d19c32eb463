/**
 * Permission grants and server-side signing, on a real chain (hardhat with EntryPoint v0.8, Simple7702Account
 * and the paymaster; alto as the bundler): users sign in by email through @latchkey/core and grant the app's
 * backend a permission; the backend (@latchkey/backend, stamped by the app's server key) signs and sends
 * within it, and is refused — with a stable code — over a cap, after expiry, after revocation, for another
 * contract, for another user.
 */
import { randomBytes } from "node:crypto";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import {
  createEip1193Provider,
  createGrant,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type GrantPermissionsInput,
  listAuditEvents,
  listGrants,
  revokeGrant,
  type Signer,
} from "@latchkey/core";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { type Address, encodeFunctionData, type Hex, parseAbi, parseEther, toFunctionSelector } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainStack, counterAbi } from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import { simpleAccountAddress } from "../src/keyManagement/policies/ownAccounts";
import { freshDatabase, post } from "./helpers";

const API_KEY = "lk_grants_key_0123456789abcdef";
const SERVER_KEY = generateP256PrivateKey();
const OTHER_KEY = generateP256PrivateKey();
const HOUR = 3600_000;

let stack: ChainStack;
beforeAll(async () => {
  stack = await sharedChainStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

function grantsApp(): AppConfig {
  return {
    id: "grants-app",
    name: "Grants App",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://grants.test"],
    serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
    sponsorship: { policies: [{ id: "pol_bot", chainId: stack.chainId }] },
  };
}

/** The refusal a backend call ends in: its code, status and data. */
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof BackendApiError) return { code: e.code, status: e.status, data: e.data };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe.each(["sqlite", "postgres"] as const)("grants and the backend client (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  const clock = { offset: 0 };
  let alice: Signer;
  let bob: Signer;
  const recipient: Address = privateKeyToAddress(generatePrivateKey());

  const backend = () =>
    createBackendClient({
      url: svc.url,
      appId: "grants-app",
      serverKey: SERVER_KEY,
      now: () => Date.now() + clock.offset,
    });

  async function signIn(email: string): Promise<Signer> {
    const signer = createSigner({
      baseUrl: svc.url,
      apiKey: API_KEY,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    const mailbox = devMailbox(svc.service);
    const sent = mailbox.count(email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    await signer.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });
    return signer;
  }
  const userOf = (s: Signer) => s.store.getState().user as { userId: string; address: string };

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      masterKey: randomBytes(32),
      dev: true,
      now: () => Date.now() + clock.offset,
      chains: [
        {
          chainId: stack.chainId,
          rpcUrl: stack.rpcUrl,
          paymaster: stack.paymaster,
          bundlerUrl: stack.bundlerUrl,
        },
      ],
      apps: [grantsApp()],
      logLevel: "silent",
    });
    await stack.addPaymasterSigner(await svc.service.paymasterSignerAddress());
    alice = await signIn(`alice-${kind}@grants.test`);
    bob = await signIn(`bob-${kind}@grants.test`);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  it("a backend sends a sponsored transfer within a grant; the user sees it in their security activity", async () => {
    const { userId, address } = userOf(alice);
    // The transfer's value is the user's; the gas is the app's (sponsored).
    await stack.fund(address as Address, parseEther("0.001"));
    const mailbox = devMailbox(svc.service);
    const email = `alice-${kind}@grants.test`;
    const mailsBefore = mailbox.count(email);
    const expiresAt = Date.now() + clock.offset + HOUR;
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      contracts: [recipient],
      valuePerTransaction: "1000",
      valuePerDay: "1500",
      maxOperations: 3,
      expiresAt,
      description: "Pays the rent",
    });
    expect(grant).toMatchObject({ status: "active", operationsUsed: 0, userId });
    // The account's email is told, with the grant's end in UTC.
    const notice = await mailbox.mail(email, mailsBefore);
    expect(notice.subject).toBe("You let Grants App sign for you");
    const until = new Intl.DateTimeFormat("en", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });
    expect(notice.text).toContain(
      `You just let Grants App sign for your account while you are away, within the limits you accepted, until ${until.format(expiresAt)} UTC.`,
    );

    const sent = await backend().sendUserOperation({
      userId,
      grantId: grant.grantId,
      chainId: stack.chainId,
      calls: [{ to: recipient, value: 1000n }],
      policyId: "pol_bot",
      waitForReceipt: true,
    });
    expect(sent).toMatchObject({ success: true, sender: address });
    expect(await stack.publicClient.getBalance({ address: recipient })).toBe(1000n);
    // The EOA paid no gas: the paymaster did.
    expect(await stack.publicClient.getBalance({ address: address as Address })).toBe(
      parseEther("0.001") - 1000n,
    );

    const [after] = await listGrants(alice);
    expect(after).toMatchObject({ grantId: grant.grantId, operationsUsed: 1, valueUsedToday: "1000" });
    const events = await listAuditEvents(alice);
    const used = events.filter((e) => e.event === "grant.used" && e.details?.grantId === grant.grantId);
    // The operation's signature, and its first operation's EIP-7702 authorization.
    expect(used.map((e) => e.details?.kind).sort()).toEqual(["authorization", "userOperation"]);
    expect(events.some((e) => e.event === "grant.created" && e.details?.grantId === grant.grantId)).toBe(
      true,
    );
    const rows = await svc.service.ctx.db
      .selectFrom("activities")
      .select(["id", "status"])
      .where("grant_id", "=", grant.grantId)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(["ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_COMPLETED"]);
    expect(rows.map((r) => r.id)).toContain(sent.activityId);

    // Over the day's cap (1000 + 1000 > 1500), over the per-transaction cap, another contract: refused.
    const again = (value: bigint, to: Address = recipient) =>
      backend().sendUserOperation({
        userId,
        grantId: grant.grantId,
        chainId: stack.chainId,
        calls: [{ to, value }],
        policyId: "pol_bot",
      });
    expect(await refusal(again(1000n))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      status: 403,
      data: { limit: "valuePerDay", max: "1500", used: "1000" },
    });
    expect(await refusal(again(2000n))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { limit: "valuePerTransaction" },
    });
    const other = await refusal(again(0n, stack.counter));
    expect(other).toMatchObject({ code: "GRANT_DENIED", status: 403, data: { ruleId: "grant.scope" } });
    const rejected = await svc.service.ctx.db
      .selectFrom("activities")
      .select(["status", "grant_id"])
      .where("id", "=", other.data?.activityId as string)
      .executeTakeFirstOrThrow();
    expect(rejected).toEqual({ status: "ACTIVITY_STATUS_REJECTED", grant_id: grant.grantId });
    expect(await stack.publicClient.getBalance({ address: recipient })).toBe(1000n);
  }, 60_000);

  it("W6: a call through the user's own (7702) address is read as the calls it runs", async () => {
    const { userId, address } = userOf(alice);
    const eoa = address as Address;
    // The first test sent alice's first operation: her EOA delegates to Simple7702Account.
    expect((await stack.publicClient.getCode({ address: eoa }))?.toLowerCase()).toBe(
      `0xef0100${stack.simple7702Account.slice(2).toLowerCase()}`,
    );
    // The service reads her SimpleAccounts' addresses offline: they are the factories' answers.
    const factoryAbi = parseAbi(["function getAddress(address owner, uint256 salt) view returns (address)"]);
    for (const [factory, address] of [
      ["SimpleAccountFactory", stack.accountFactory],
      ["LatchkeySimpleAccountFactory", stack.latchkeyAccountFactory],
    ] as const)
      expect(simpleAccountAddress({ factory, owner: eoa })).toBe(
        (
          await stack.publicClient.readContract({
            address,
            abi: factoryAbi,
            functionName: "getAddress",
            args: [eoa, 0n],
          })
        ).toLowerCase(),
      );
    await stack.fund(eoa, parseEther("2"));
    const friend: Address = privateKeyToAddress(generatePrivateKey());
    const execute = (to: Address, value: bigint, data: Hex = "0x") =>
      encodeFunctionData({
        abi: parseAbi(["function execute(address target, uint256 value, bytes data)"]),
        args: [to, value, data],
      });
    const b = backend();
    const fees = { gas: 200_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n };
    const viaSelf = async (grantId: string, data: Hex) =>
      b.signTransaction({
        userId,
        grantId,
        transaction: {
          chainId: stack.chainId,
          to: eoa,
          data,
          nonce: await stack.publicClient.getTransactionCount({ address: eoa }),
          ...fees,
        },
      });
    const usedToday = async (grantId: string) =>
      (await listGrants(alice)).find((g) => g.grantId === grantId)?.valueUsedToday;

    // No value at all: 1 ETH to a friend through execute on her own address is over the cap, not signed.
    const noValue = await createGrant(alice, {
      chainIds: [stack.chainId],
      valuePerTransaction: "0",
      valuePerDay: "0",
      expiresAt: Date.now() + clock.offset + HOUR,
    });
    expect(await refusal(viaSelf(noValue.grantId, execute(friend, parseEther("1"))))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      status: 403,
      data: { limit: "valuePerTransaction", max: "0", used: parseEther("1").toString() },
    });
    expect(await usedToday(noValue.grantId)).toBe("0");
    // What her account would run for her but no rule can read: refused.
    const upgrade = encodeFunctionData({
      abi: parseAbi(["function upgradeToAndCall(address, bytes)"]),
      args: [friend, "0x"],
    });
    expect(await refusal(viaSelf(noValue.grantId, upgrade))).toMatchObject({
      code: "GRANT_DENIED",
      data: { ruleId: "ownAccountCalls" },
    });

    // A grant for payments to the friend: the same call within it is signed and mined, and counted.
    const toFriend = await createGrant(alice, {
      chainIds: [stack.chainId],
      contracts: [friend],
      valuePerTransaction: "1000",
      valuePerDay: "1000",
      typedData: true,
      expiresAt: Date.now() + clock.offset + HOUR,
    });
    const ok = await viaSelf(toFriend.grantId, execute(friend, 1000n));
    const hash = await stack.publicClient.sendRawTransaction({ serializedTransaction: ok.signedTransaction });
    expect((await stack.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await stack.publicClient.getBalance({ address: friend })).toBe(1000n);
    expect(await usedToday(toFriend.grantId)).toBe("1000");
    // Another target inside, or over the day's cap: refused, nothing more mined.
    expect(await refusal(viaSelf(toFriend.grantId, execute(recipient, 1n)))).toMatchObject({
      code: "GRANT_DENIED",
      data: { ruleId: "grant.scope" },
    });
    expect(await refusal(viaSelf(toFriend.grantId, execute(friend, 1000n)))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { limit: "valuePerDay" },
    });
    expect(await stack.publicClient.getBalance({ address: friend })).toBe(1000n);
  }, 60_000);

  it("W6: typed data whose domain names no chain is refused under a grant", async () => {
    const { userId, address } = userOf(alice);
    const b = backend();
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      typedData: true,
      expiresAt: Date.now() + clock.offset + HOUR,
    });
    // Typed data whose domain names no chain is valid on every chain: the grant's chains refuse it.
    const chainless = {
      domain: { name: "Mail" },
      types: { Mail: [{ name: "body", type: "string" }] },
      primaryType: "Mail",
      message: { body: "hi" },
    } as const;
    expect(
      await refusal(b.signTypedData({ userId, grantId: grant.grantId, typedData: chainless })),
    ).toMatchObject({ code: "GRANT_DENIED", status: 403, data: { ruleId: "grant.chainIds" } });
    const onChain = { ...chainless, domain: { name: "Mail", chainId: stack.chainId } };
    expect((await b.signTypedData({ userId, grantId: grant.grantId, typedData: onChain })).address).toBe(
      address,
    );
  });

  it("signs messages, typed data and transactions within a grant, and no more than its operations", async () => {
    const { userId, address } = userOf(alice);
    const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      contracts: [stack.counter],
      selectors: [toFunctionSelector("increment()")],
      messages: true,
      maxOperations: 3,
      expiresAt: Date.now() + clock.offset + HOUR,
    });
    const b = backend();
    const message = await b.signMessage({ userId, grantId: grant.grantId, message: "rebalance 1" });
    expect(message.address).toBe(address);
    const { recoverMessageAddress, recoverTransactionAddress } = await import("viem");
    expect(await recoverMessageAddress({ message: "rebalance 1", signature: message.signature })).toBe(
      address,
    );
    const tx = await b.signTransaction({
      userId,
      grantId: grant.grantId,
      transaction: {
        chainId: stack.chainId,
        to: stack.counter,
        data: increment,
        nonce: 0,
        gas: 100_000n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
      },
    });
    expect(
      await recoverTransactionAddress({ serializedTransaction: tx.signedTransaction as `0x02${string}` }),
    ).toBe(address);
    // Another function of the same contract, typed data the grant does not allow: refused, not counted.
    const add = encodeFunctionData({ abi: counterAbi, functionName: "add", args: [1n] });
    expect(
      await refusal(
        b.signTransaction({
          userId,
          grantId: grant.grantId,
          transaction: {
            chainId: stack.chainId,
            to: stack.counter,
            data: add,
            nonce: 1,
            gas: 100_000n,
            maxFeePerGas: 10n ** 9n,
            maxPriorityFeePerGas: 1n,
          },
        }),
      ),
    ).toMatchObject({ code: "GRANT_DENIED", data: { ruleId: "grant.scope" } });
    expect(
      await refusal(
        b.signTypedData({
          userId,
          grantId: grant.grantId,
          typedData: {
            domain: { name: "Mail", chainId: stack.chainId },
            types: { Mail: [{ name: "body", type: "string" }] },
            primaryType: "Mail",
            message: { body: "hi" },
          },
        }),
      ),
    ).toMatchObject({ code: "GRANT_DENIED", data: { ruleId: "typedData" } });
    // Another chain.
    expect(
      await refusal(
        b.signTransaction({
          userId,
          grantId: grant.grantId,
          transaction: {
            chainId: 1,
            to: stack.counter,
            data: increment,
            nonce: 0,
            gas: 100_000n,
            maxFeePerGas: 10n ** 9n,
            maxPriorityFeePerGas: 1n,
          },
        }),
      ),
    ).toMatchObject({ code: "GRANT_DENIED" });
    await b.signMessage({ userId, grantId: grant.grantId, message: "rebalance 2" });
    expect(
      await refusal(b.signMessage({ userId, grantId: grant.grantId, message: "rebalance 3" })),
    ).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { limit: "maxOperations", max: "3", used: "3" },
    });
  });

  it("refuses another user, a revoked grant and an expired one at once", async () => {
    const alicesGrant = await createGrant(alice, {
      chainIds: [stack.chainId],
      messages: true,
      // A minute, and the service's clock moved past it below: a loaded machine's real time decides nothing.
      expiresAt: Date.now() + clock.offset + 60_000,
    });
    const b = backend();
    const sign = (userId: string, grantId = alicesGrant.grantId) =>
      b.signMessage({ userId, grantId, message: "hello" });
    await sign(userOf(alice).userId);
    expect(await refusal(sign(userOf(bob).userId))).toMatchObject({
      code: "GRANT_USER_MISMATCH",
      status: 403,
    });
    expect(await refusal(sign(userOf(alice).userId, "grant_nope"))).toMatchObject({
      code: "GRANT_NOT_FOUND",
      status: 404,
    });

    const bobsGrant = await createGrant(bob, {
      chainIds: [stack.chainId],
      messages: true,
      expiresAt: Date.now() + clock.offset + HOUR,
    });
    await sign(userOf(bob).userId, bobsGrant.grantId);
    const revoked = await revokeGrant(bob, { grantId: bobsGrant.grantId });
    expect(revoked.status).toBe("revoked");
    expect(await refusal(sign(userOf(bob).userId, bobsGrant.grantId))).toMatchObject({
      code: "GRANT_REVOKED",
      status: 403,
    });
    // Alice cannot revoke Bob's grant.
    await expect(revokeGrant(alice, { grantId: bobsGrant.grantId })).rejects.toMatchObject({
      code: "GRANT_NOT_FOUND",
    });

    clock.offset += 61_000;
    try {
      expect(await refusal(sign(userOf(alice).userId))).toMatchObject({ code: "GRANT_EXPIRED", status: 403 });
      expect((await listGrants(alice)).find((g) => g.grantId === alicesGrant.grantId)?.status).toBe(
        "expired",
      );
    } finally {
      clock.offset -= 61_000;
    }
  });

  it("takes only the app's server keys, each body once", async () => {
    const { userId } = userOf(alice);
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      messages: true,
      expiresAt: Date.now() + HOUR,
    });
    const body = JSON.stringify({
      type: "BACKEND_SIGN_MESSAGE",
      appId: "grants-app",
      timestampMs: String(Date.now()),
      userId,
      grantId: grant.grantId,
      message: "once",
    });
    const send = (key: Uint8Array, text = body) => {
      const stamp = stampWithPrivateKey(text, key);
      return post(svc.url, "/backend/v1/sign_message", text, {
        [stamp.stampHeaderName]: stamp.stampHeaderValue,
      });
    };
    expect((await send(SERVER_KEY)).status).toBe(200);
    expect((await send(SERVER_KEY)).json.code).toBe("STAMP_REPLAYED");
    expect((await send(OTHER_KEY)).json).toMatchObject({ code: "SERVER_KEY_REQUIRED" });
    const otherApp = body.replace('"grants-app"', '"other-app"');
    expect((await send(SERVER_KEY, otherApp)).json).toMatchObject({ code: "FORBIDDEN" });
    const unknownField = JSON.stringify({
      ...JSON.parse(body),
      timestampMs: String(Date.now() + 1),
      extra: 1,
    });
    expect((await send(SERVER_KEY, unknownField)).status).toBe(400);
    expect((await post(svc.url, "/backend/v1/sign_message", body)).json).toMatchObject({
      code: "INVALID_STAMP",
    });
    // The app's API key is not a server key.
    expect(
      (await post(svc.url, "/backend/v1/grants/list", "{}", { authorization: `Bearer ${API_KEY}` })).status,
    ).toBe(401);
    const grants = await backend().listGrants(userId);
    expect(grants.map((g) => g.grantId)).toContain(grant.grantId);
    expect(grants.every((g) => g.userId === userId)).toBe(true);
  });

  it("the EIP-1193 provider answers wallet_grantPermissions (ERC-7715) with a grant, and revokes it", async () => {
    const { userId } = userOf(alice);
    const asked: GrantPermissionsInput[] = [];
    const provider = createEip1193Provider(alice, {
      chains: [{ chain: stack.chain, rpcUrl: stack.rpcUrl }],
      // The app's consent (the modal's step in a browser): here, the user allows what is asked.
      requestGrant: async (permissions) => {
        asked.push(permissions);
        return createGrant(alice, permissions);
      },
    });
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    const answer = (await provider.request({
      method: "wallet_grantPermissions",
      params: [
        {
          expiry,
          signer: { type: "key", data: { id: "backend" } },
          permissions: [
            {
              type: "contract-call",
              data: { address: stack.counter, calls: ["increment()"] },
              policies: [{ type: "call-limit", data: { count: 2 } }],
            },
          ],
        },
      ],
    } as never)) as { permissionsContext: string; expiry: number; chainId: string };
    expect(answer).toMatchObject({ expiry, chainId: `0x${stack.chainId.toString(16)}` });
    // What the grant allows, read from it: the contract, its function, the count.
    expect((answer as unknown as { grantedPermissions: unknown }).grantedPermissions).toEqual([
      {
        type: "contract-call",
        data: { address: stack.counter.toLowerCase(), calls: [toFunctionSelector("increment()")] },
        policies: [{ type: "call-limit", data: { count: 2 } }],
      },
    ]);
    expect(asked).toEqual([
      {
        chainIds: [stack.chainId],
        contracts: [stack.counter.toLowerCase()],
        selectors: [toFunctionSelector("increment()")],
        valuePerTransaction: "0",
        maxOperations: 2,
        expiresAt: expiry * 1000,
      },
    ]);
    const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
    const tx = {
      chainId: stack.chainId,
      to: stack.counter,
      data: increment,
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 1n,
    };
    await backend().signTransaction({ userId, grantId: answer.permissionsContext, transaction: tx });
    expect(
      await provider.request({
        method: "wallet_revokePermissions",
        params: [{ permissionsContext: answer.permissionsContext }],
      } as never),
    ).toBeNull();
    expect(
      await refusal(
        backend().signTransaction({ userId, grantId: answer.permissionsContext, transaction: tx }),
      ),
    ).toMatchObject({ code: "GRANT_REVOKED" });
    // Without a consent to ask, the provider grants nothing.
    const bare = createEip1193Provider(alice, { chains: [{ chain: stack.chain, rpcUrl: stack.rpcUrl }] });
    await expect(
      bare.request({ method: "wallet_grantPermissions", params: [{ expiry, permissions: [] }] } as never),
    ).rejects.toMatchObject({ code: 4200 });
    // A declined consent is the user's rejection (4001).
    const declining = createEip1193Provider(alice, {
      chains: [{ chain: stack.chain, rpcUrl: stack.rpcUrl }],
      requestGrant: () => Promise.reject(new Error("declined")),
    });
    await expect(
      declining.request({
        method: "wallet_grantPermissions",
        params: [
          {
            expiry,
            permissions: [
              {
                type: "erc20-token-transfer",
                data: { address: stack.counter, allowance: "0x64" },
                policies: [],
              },
            ],
          },
        ],
      } as never),
    ).rejects.toMatchObject({ code: 4001 });
  });

  it("refuses grants that are not well formed", async () => {
    await expect(createGrant(alice, { chainIds: [], expiresAt: Date.now() + HOUR })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(createGrant(alice, { chainIds: [1], expiresAt: Date.now() - 1 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(
      createGrant(alice, { chainIds: [1], expiresAt: Date.now() + 400 * 24 * HOUR }),
    ).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(
      createGrant(alice, { chainIds: [1], contracts: ["0x12" as Hex], expiresAt: Date.now() + HOUR }),
    ).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});
