/**
 * Issue 47 item 1: limits in tokens. A grant "10 USDC per 24 h" on a TestToken deployed on the devnet
 * holds against everything a signature can move the token with — a user operation's batch (sent, on
 * chain), a transfer and an approval (signed and sent), an EIP-2612 permit, a Permit2 permit and an
 * EIP-3009 transferWithAuthorization — and refuses a call on the token it cannot count. The 24 hours roll
 * (an injected clock, no waiting); 16 concurrent spends at two `latchkey serve` processes sharing the
 * database never pass the limit. SQLite and PostgreSQL.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import {
  createEip1193Provider,
  createGrant,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
} from "@latchkey/core";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  parseAbi,
  parseEther,
  parseUnits,
  type TypedDataDefinition,
  verifyTypedData,
} from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { deployTestToken, mintTestToken } from "../../../test-support/chain/testToken";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import { type Db, openDatabase } from "../src/db";
import { codeFrom, freshDatabase, type Instance, type Smtp, serve, startSmtp, stop } from "./helpers";

const API_KEY = "lk_token_limits_0123456789abcdef";
const SERVER_KEY = generateP256PrivateKey();
const SERVER_PUBLIC_KEY = toHex(p256PublicKeyFromPrivate(SERVER_KEY, true));
const DAY = 86_400_000;
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const usdc = (amount: string) => parseUnits(amount, 6);

let stack: ChainStack;
let token: Address;
beforeAll(async () => {
  stack = await sharedChainStack();
  token = await deployTestToken(stack.publicClient, { name: "USD Coin", symbol: "USDC", decimals: 6 });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** The refusal a backend call ends in: its code, status, message and data. */
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof BackendApiError)
      return { code: e.code, status: e.status, message: e.message, data: e.data };
    throw e;
  }
  throw new Error("expected a refusal");
}

const transferData = (to: Address, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] });
const fields = (spec: string) =>
  spec.split(",").map((f) => {
    const [type, name] = f.split(" ") as [string, string];
    return { type, name };
  });

describe.each(["sqlite", "postgres"] as const)("a grant of 10 USDC per 24 hours (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  // The service's clock, and the backend's stamps': moved by hand, never by waiting.
  const clock = { now: Date.now() };
  let alice: Signer;
  const bob: Address = privateKeyToAddress(generatePrivateKey());

  const backend = () =>
    createBackendClient({ url: svc.url, appId: "limits", serverKey: SERVER_KEY, now: () => clock.now });

  /** Alice, signed in by email now (the clock's now): a fresh session, which a grant needs. */
  async function signIn(): Promise<Signer> {
    const signer = createSigner({
      baseUrl: svc.url,
      apiKey: API_KEY,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      // The service's clock, for the stamps and the session's expiry.
      clock: {
        now: () => clock.now,
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
    });
    const email = `alice-${kind}@limits.test`;
    const mailbox = devMailbox(svc.service);
    const sent = mailbox.count(email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    await signer.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });
    return signer;
  }

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      dev: true,
      now: () => clock.now,
      chains: [
        {
          chainId: stack.chainId,
          rpcUrl: stack.rpcUrl,
          paymaster: stack.paymaster,
          bundlerUrl: stack.bundlerUrl,
        },
      ],
      apps: [
        {
          id: "limits",
          name: "Limits",
          apiKeys: [API_KEY],
          allowedOrigins: ["http://limits.test"],
          serverKeys: [{ name: "bot", publicKey: SERVER_PUBLIC_KEY }],
          sponsorship: { policies: [{ id: "pol_limits", chainId: stack.chainId }] },
        },
      ],
      logLevel: "silent",
    });
    await stack.addPaymasterSigner(await svc.service.paymasterSignerAddress());
    alice = await signIn();
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  it("holds against a user operation's batch, a transfer, an approval, permits and a transfer authorization; the 24 hours roll", async () => {
    const { userId, address } = alice.store.getState().user as { userId: string; address: Address };
    await mintTestToken(stack.publicClient, token, address, usdc("100"));
    await stack.fund(address, parseEther("0.01"));
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      typedData: true,
      tokenLimits: [{ chainId: stack.chainId, token, windows: [{ window: "24h", amount: "10000000" }] }],
      expiresAt: clock.now + 30 * DAY,
    });
    expect(grant.permissions.tokenLimits).toEqual([
      {
        chainId: stack.chainId,
        token: token.toLowerCase(),
        windows: [{ window: "24h", amount: "10000000" }],
      },
    ]);
    const b = backend();
    const under = { userId, grantId: grant.grantId };
    const balanceOf = (who: Address) =>
      stack.publicClient.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [who],
      });

    // 1.5 USDC in a user operation's batch, sent and sponsored: on chain.
    const t0 = clock.now;
    const op = await b.sendUserOperation({
      ...under,
      chainId: stack.chainId,
      calls: [
        { to: token, data: transferData(bob, usdc("1")) },
        { to: token, data: transferData(bob, usdc("0.5")) },
      ],
      policyId: "pol_limits",
      waitForReceipt: true,
    });
    expect(op.success).toBe(true);
    expect(await balanceOf(bob)).toBe(usdc("1.5"));

    // 3 USDC by transfer and 2 by approval (an approval counts whole), signed and sent by the user's EOA.
    clock.now += 1000;
    const send = async (data: Hex) => {
      const { signedTransaction } = await b.signTransaction({
        ...under,
        transaction: {
          chainId: stack.chainId,
          to: token,
          data,
          nonce: await stack.publicClient.getTransactionCount({ address }),
          gas: 200_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 1n,
        },
      });
      const hash = await stack.publicClient.sendRawTransaction({ serializedTransaction: signedTransaction });
      expect((await stack.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    };
    await send(transferData(bob, usdc("3")));
    expect(await balanceOf(bob)).toBe(usdc("4.5"));
    const spender: Address = privateKeyToAddress(generatePrivateKey());
    await send(encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, usdc("2")] }));
    expect(
      await stack.publicClient.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [address, spender],
      }),
    ).toBe(usdc("2"));

    // 1 USDC each by an EIP-2612 permit, a Permit2 permit and an EIP-3009 authorization: signed.
    const domain = { name: "USD Coin", version: "2", chainId: stack.chainId, verifyingContract: token };
    const permit: TypedDataDefinition = {
      domain,
      types: { Permit: fields("address owner,address spender,uint256 value,uint256 nonce,uint256 deadline") },
      primaryType: "Permit",
      message: { owner: address, spender, value: usdc("1"), nonce: 0n, deadline: 2n ** 40n },
    };
    const permit2: TypedDataDefinition = {
      domain: { name: "Permit2", chainId: stack.chainId, verifyingContract: PERMIT2 },
      types: {
        PermitSingle: fields("PermitDetails details,address spender,uint256 sigDeadline"),
        PermitDetails: fields("address token,uint160 amount,uint48 expiration,uint48 nonce"),
      },
      primaryType: "PermitSingle",
      message: {
        details: { token, amount: usdc("1"), expiration: 2 ** 40, nonce: 0 },
        spender,
        sigDeadline: 2n ** 40n,
      },
    };
    const authorization = (value: bigint, nonce: number): TypedDataDefinition => ({
      domain,
      types: {
        TransferWithAuthorization: fields(
          "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce",
        ),
      },
      primaryType: "TransferWithAuthorization",
      message: {
        from: address,
        to: bob,
        value,
        validAfter: 0n,
        validBefore: 2n ** 40n,
        nonce: `0x${nonce.toString(16).padStart(64, "0")}`,
      },
    });
    for (const typedData of [permit, permit2, authorization(usdc("1"), 1)]) {
      clock.now += 1000;
      const { signature } = await b.signTypedData({ ...under, typedData });
      expect(await verifyTypedData({ ...typedData, address, signature } as never)).toBe(true);
    }

    // 9.5 USDC counted: 1 more is refused, saying which limit, how much is left and when more comes.
    clock.now += 1000;
    const over = await refusal(b.signTypedData({ ...under, typedData: authorization(usdc("1"), 2) }));
    expect(over).toEqual({
      code: "GRANT_LIMIT_EXCEEDED",
      status: 403,
      message: `The grant's limit of 10000000 per 24 hours for token ${token.toLowerCase()} on chain ${stack.chainId} does not cover 1000000: 500000 left (more from ${new Date(t0 + DAY).toISOString()})`,
      data: {
        limit: "tokenPerWindow",
        chainId: stack.chainId,
        token: token.toLowerCase(),
        window: "24h",
        max: "10000000",
        used: "9500000",
        left: "500000",
        requested: "1000000",
        resetsAt: new Date(t0 + DAY).toISOString(),
      },
    });
    // The same over a batch: its calls add up (three of 0.25 do not fit in 0.5, two do).
    const batch = (n: number) =>
      b.sendUserOperation({
        ...under,
        chainId: stack.chainId,
        calls: Array.from({ length: n }, () => ({ to: token, data: transferData(bob, usdc("0.25")) })),
        policyId: "pol_limits",
        waitForReceipt: true,
      });
    expect(await refusal(batch(3))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { limit: "tokenPerWindow", left: "500000", requested: "750000" },
    });
    expect((await batch(2)).success).toBe(true);
    expect(await balanceOf(bob)).toBe(usdc("5"));
    expect(await refusal(b.signTypedData({ ...under, typedData: authorization(1n, 3) }))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { used: "10000000", left: "0", requested: "1" },
    });

    // A call on the token the limit cannot count (here its mint) is refused, and recorded as refused.
    const mint = encodeFunctionData({
      abi: parseAbi(["function mint(address to, uint256 amount)"]),
      args: [address, 1n],
    });
    const unknown = await refusal(
      b.signTransaction({
        ...under,
        transaction: {
          chainId: stack.chainId,
          to: token,
          data: mint,
          nonce: 0,
          gas: 100_000n,
          maxFeePerGas: 1n,
        },
      }),
    );
    expect(unknown).toMatchObject({
      code: "GRANT_DENIED",
      status: 403,
      data: { ruleId: "grant.tokenLimits" },
    });
    expect(unknown.message).toBe(
      `The grant limits token ${token.toLowerCase()} on chain ${stack.chainId}, and 0x40c10f19 on it is none of transfer, transferFrom, approve, increaseAllowance, a permit or a transfer authorization, whose amount the limit counts`,
    );
    const rejected = await svc.service.ctx.db
      .selectFrom("activities")
      .select("status")
      .where("id", "=", unknown.data?.activityId as string)
      .executeTakeFirstOrThrow();
    expect(rejected.status).toBe("ACTIVITY_STATUS_REJECTED");

    // The window rolls: a millisecond before the batch's 24 hours are up nothing fits; at that instant
    // its 1.5 USDC is free again — and no more.
    clock.now = t0 + DAY - 1;
    expect(await refusal(b.signTypedData({ ...under, typedData: authorization(1n, 4) }))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { left: "0" },
    });
    clock.now = t0 + DAY;
    await b.signTypedData({ ...under, typedData: authorization(usdc("1.5"), 5) });
    expect(await refusal(b.signTypedData({ ...under, typedData: authorization(1n, 6) }))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { left: "0", resetsAt: new Date(t0 + 1000 + DAY).toISOString() },
    });
    // What the ledger holds: every spend counted, none of the refused.
    const ledger = await svc.service.ctx.db
      .selectFrom("grant_token_spends")
      .select("amount")
      .where("grant_id", "=", grant.grantId)
      .execute();
    expect(ledger.reduce((sum, r) => sum + BigInt(r.amount), 0n)).toBe(usdc("11.5"));
  }, 120_000);

  it("counts per transaction, per UTC day and in all; the day starts again at midnight", async () => {
    const { userId, address } = alice.store.getState().user as { userId: string; address: Address };
    // 23:00 UTC: an hour before the day turns.
    clock.now = Date.UTC(2027, 2, 10, 23, 0);
    alice = await signIn();
    const grant = await createGrant(alice, {
      chainIds: [stack.chainId],
      typedData: true,
      tokenLimits: [
        {
          chainId: stack.chainId,
          token,
          perTransaction: "2000000",
          windows: [
            { window: "day", amount: "3000000" },
            { window: "total", amount: "5000000" },
          ],
        },
      ],
      expiresAt: clock.now + 30 * DAY,
    });
    const b = backend();
    const pay = (value: bigint, nonce: number) =>
      b.signTypedData({
        userId,
        grantId: grant.grantId,
        typedData: {
          domain: { name: "USD Coin", version: "2", chainId: stack.chainId, verifyingContract: token },
          types: {
            ReceiveWithAuthorization: fields(
              "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce",
            ),
          },
          primaryType: "ReceiveWithAuthorization",
          message: {
            from: address,
            to: bob,
            value,
            validAfter: 0n,
            validBefore: 2n ** 40n,
            nonce: `0x${nonce.toString(16).padStart(64, "0")}`,
          },
        },
      });
    expect(await refusal(pay(usdc("2.5"), 1))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      message: `The grant's limit of 2000000 per transaction for token ${token.toLowerCase()} on chain ${stack.chainId} does not cover 2500000: 2000000 left`,
      data: { limit: "tokenPerTransaction", max: "2000000", left: "2000000", requested: "2500000" },
    });
    await pay(usdc("2"), 2);
    await pay(usdc("1"), 3);
    expect(await refusal(pay(1n, 4))).toMatchObject({
      data: {
        limit: "tokenPerWindow",
        window: "day",
        left: "0",
        resetsAt: new Date(Date.UTC(2027, 2, 11)).toISOString(),
      },
    });
    // Midnight UTC: a new day, but the grant's total still counts the 3 USDC.
    clock.now = Date.UTC(2027, 2, 11, 0, 0);
    await pay(usdc("2"), 5);
    expect(await refusal(pay(1n, 6))).toMatchObject({
      message: `The grant's limit of 5000000 in all for token ${token.toLowerCase()} on chain ${stack.chainId} does not cover 1: 0 left`,
      data: { limit: "tokenPerWindow", window: "total", used: "5000000", left: "0" },
    });
    // Refusals count nothing.
    const [listed] = (await b.listGrants(userId)).filter((g) => g.grantId === grant.grantId);
    expect(listed?.operationsUsed).toBe(3);
  });

  it("ERC-7715: an erc20-token-transfer with an allowance per period is that limit, and the answer says so", async () => {
    const { userId } = alice.store.getState().user as { userId: string };
    clock.now = Date.UTC(2027, 3, 1, 12, 0);
    alice = await signIn();
    const provider = createEip1193Provider(alice, {
      chains: [{ chain: stack.chain, rpcUrl: stack.rpcUrl }],
      requestGrant: (permissions) => createGrant(alice, permissions),
    });
    const expiry = Math.floor(clock.now / 1000) + 7 * 86_400;
    const answer = (await provider.request({
      method: "wallet_grantPermissions",
      params: [
        {
          expiry,
          signer: { type: "key", data: { id: "backend" } },
          permissions: [
            {
              type: "erc20-token-transfer",
              data: { address: token, ticker: "USDC", allowance: "0x989680", period: 86_400 },
              required: true,
            },
          ],
        },
      ],
    } as never)) as { permissionsContext: string; grantedPermissions: unknown };
    expect(answer.grantedPermissions).toEqual([
      {
        type: "erc20-token-transfer",
        data: {
          address: token.toLowerCase(),
          allowance: "0x989680",
          period: 86_400,
          start: clock.now / 1000,
        },
        policies: [],
      },
      {
        type: "contract-call",
        data: { address: token.toLowerCase(), calls: ["0xa9059cbb"] },
        policies: [],
      },
    ]);
    const b = backend();
    const under = { userId, grantId: answer.permissionsContext };
    const sign = (data: Hex, nonce: number) =>
      b.signTransaction({
        ...under,
        transaction: { chainId: stack.chainId, to: token, data, nonce, gas: 100_000n, maxFeePerGas: 1n },
      });
    await sign(transferData(bob, usdc("10")), 0);
    expect(await refusal(sign(transferData(bob, 1n), 1))).toMatchObject({
      code: "GRANT_LIMIT_EXCEEDED",
      data: { limit: "tokenPerWindow", window: "24h", left: "0" },
    });
    // Only transfer: an approval of the token is outside what was granted.
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [bob, 1n] });
    expect(await refusal(sign(approve, 1))).toMatchObject({
      code: "GRANT_DENIED",
      data: { ruleId: "grant.scope" },
    });
  });
});

describe.each(["sqlite", "postgres"] as const)(
  "a token limit at two processes on one %s database",
  (kind) => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let smtp: Smtp;
    let a: Instance;
    let b: Instance;
    let db: Db;
    let close: () => Promise<void>;
    let alice: Signer;
    let userId: string;
    const CHAIN = 31337;
    const USDC = "0x2222222222222222222222222222222222222222";

    beforeAll(async () => {
      database = await freshDatabase(kind);
      smtp = await startSmtp();
      const dir = mkdtempSync(join(tmpdir(), "latchkey-token-limits-"));
      const config = join(dir, "config.json");
      writeFileSync(
        config,
        JSON.stringify({
          apps: [
            {
              id: "limits",
              name: "Limits",
              apiKeys: [API_KEY],
              serverKeys: [{ name: "bot", publicKey: SERVER_PUBLIC_KEY }],
            },
          ],
        }),
      );
      const env = { ...process.env, LATCHKEY_MASTER_KEY: "55".repeat(32), LATCHKEY_SMTP_URL: smtp.url };
      const args = ["--db", database.url, "--config", config];
      a = await serve(args, env, dir);
      b = await serve(args, env, dir);
      ({ db, close } = openDatabase(database.url));
      alice = createSigner({
        baseUrl: a.url,
        apiKey: API_KEY,
        keyHolder: createMemoryKeyHolder(),
        storage: createMemoryStorage(),
        window: null,
      });
      const email = `alice-${kind}@token-instances.test`;
      const before = smtp.mails.length;
      await alice.authenticate({ type: "email", email, emailMode: "otp" });
      await alice.authenticate({ type: "otp", otpCode: codeFrom((await smtp.waitFor(email, before)).raw) });
      userId = (alice.store.getState().user as { userId: string }).userId;
    }, 150_000);
    afterAll(async () => {
      await stop(a?.child);
      await stop(b?.child);
      await close?.();
      await smtp?.close();
      await database?.drop();
    });

    it("16 concurrent transfers of 1 USDC under 10 USDC per 24 hours sign exactly 10", async () => {
      const grant = await createGrant(alice, {
        chainIds: [CHAIN],
        tokenLimits: [{ chainId: CHAIN, token: USDC, windows: [{ window: "24h", amount: "10000000" }] }],
        expiresAt: Date.now() + 3600_000,
      });
      const clients = [a, b].map((i) =>
        createBackendClient({ url: i.url, appId: "limits", serverKey: SERVER_KEY }),
      );
      const to: Address = privateKeyToAddress(generatePrivateKey());
      const settled = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) =>
          (clients[i % 2] as (typeof clients)[number]).signTransaction({
            userId,
            grantId: grant.grantId,
            transaction: {
              chainId: CHAIN,
              to: USDC,
              data: transferData(to, usdc("1")),
              nonce: i,
              gas: 100_000n,
              maxFeePerGas: 1n,
            },
          }),
        ),
      );
      const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as BackendApiError] : []));
      expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(10);
      expect([...new Set(refused.map((r) => `${r.code}:${String(r.data?.limit)}`))]).toEqual([
        "GRANT_LIMIT_EXCEEDED:tokenPerWindow",
      ]);
      const ledger = await db
        .selectFrom("grant_token_spends")
        .select("amount")
        .where("grant_id", "=", grant.grantId)
        .execute();
      expect(ledger.map((r) => r.amount)).toEqual(Array(10).fill("1000000"));
      const row = await db
        .selectFrom("grants")
        .select("operations_used")
        .where("id", "=", grant.grantId)
        .executeTakeFirstOrThrow();
      expect(Number(row.operations_used)).toBe(10);
    }, 60_000);
  },
);
