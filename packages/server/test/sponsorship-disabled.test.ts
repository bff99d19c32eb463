/**
 * A user an admin disabled gets nothing sponsored, under policies without per-user limits too: an EVM
 * paymaster request for their 7702 account and a Solana fee-payer request for a transaction they sign are
 * refused USER_DISABLED, and sponsored again once they are enabled. The admin disables and enables through
 * the admin API. No chain is needed: the EVM request is the stub (pm_getPaymasterStubData) of a first 7702
 * operation (its authorization names the delegate), and no Solana node is configured. SQLite and
 * PostgreSQL.
 */
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  SOLANA_FEE_PAYER_METHOD,
  toHex,
} from "@latchkey/protocol";
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { encodeFunctionData, type Hex, numberToHex, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import { systemTransfer } from "../../../test-support/solana/transfer";
import { SIMPLE_7702_ACCOUNT_V08 } from "../src/features/sponsorship/evm/config";
import {
  type EmailUser,
  freshDatabase,
  type Harness,
  SCENARIO_DATABASES,
  type Smtp,
  signUpByEmail,
  startSmtp,
} from "./helpers";
import { AdminClient } from "./helpers/adminClient";

const ADMIN_KEY = generateP256PrivateKey();
const API_KEY = "lk_sponsored_key_0123456789abcdef";
const CHAIN_ID = 31_337;
const ENTRY_POINT = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108";
const APP = {
  id: "sponsored",
  name: "Sponsored",
  apiKeys: [API_KEY],
  allowedOrigins: ["http://sponsored.test"],
  emailMode: "OTP" as const,
  signingPolicy: {
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
  // Neither policy has a per-user limit: nothing about the user is counted.
  sponsorship: { policies: [{ id: "pol_evm", chainId: CHAIN_ID }], solanaPolicies: [{ id: "pol_sol" }] },
};
const KEY = { authorization: `Bearer ${API_KEY}` };

describe.each(SCENARIO_DATABASES)("sponsorship of a disabled user (%s)", (kind) => {
  let h: Harness;
  let t: TestService;
  let smtp: Smtp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let admin: AdminClient;
  let carol: EmailUser;

  beforeAll(async () => {
    smtp = await startSmtp();
    database = await freshDatabase(kind);
    t = await startTestService({
      db: database.url,
      smtpUrl: smtp.url,
      logLevel: "silent",
      apps: [APP],
      // A loopback port nothing answers on: the stub request reads nothing from the chain.
      chains: [{ chainId: CHAIN_ID, rpcUrl: "http://127.0.0.1:9", paymaster: `0x${"22".repeat(20)}` }],
    });
    h = { service: t.service, url: t.url, smtp, clock: { now: 0, advance() {} }, close: async () => {} };
    const orgId = (await h.service.ctx.apps.byId(APP.id))?.orgId as string;
    admin = new AdminClient(h.url, orgId, ADMIN_KEY);
    carol = await signUpByEmail(h, `carol-${kind}@example.com`, KEY);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await database?.drop();
  });

  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(`${h.url}/rpc/v1`, {
      method: "POST",
      headers: { "content-type": "application/json", ...KEY },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return (await res.json()) as { result?: unknown; error?: { code: number; data?: { code?: string } } };
  };

  /** The stub request of the first operation of carol's 7702 account (its authorization delegates it). */
  const evmStub = () =>
    rpc("pm_getPaymasterStubData", [
      {
        sender: carol.address,
        nonce: "0x0",
        callData: encodeFunctionData({
          abi: parseAbi(["function execute(address, uint256, bytes)"]),
          functionName: "execute",
          args: [`0x${"33".repeat(20)}`, 0n, "0x"],
        }),
        callGasLimit: numberToHex(100_000n),
        verificationGasLimit: numberToHex(300_000n),
        preVerificationGas: numberToHex(60_000n),
        maxFeePerGas: numberToHex(2_000_000_000n),
        maxPriorityFeePerGas: numberToHex(1_000_000_000n),
        signature: `0x${"11".repeat(65)}` as Hex,
        eip7702Auth: {
          address: SIMPLE_7702_ACCOUNT_V08,
          chainId: numberToHex(CHAIN_ID),
          nonce: "0x0",
          r: `0x${"ff".repeat(32)}`,
          s: `0x${"7a".repeat(32)}`,
          yParity: "0x1",
        },
      },
      ENTRY_POINT,
      numberToHex(CHAIN_ID),
      { policyId: "pol_evm" },
    ]);

  /** A transfer carol signs, with her account as the fee payer the service replaces. */
  const solanaRequest = () => {
    const from = address(carol.solanaAddress);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(from, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash("4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi"), lastValidBlockHeight: 100n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions(
          [systemTransfer(from, "Vote111111111111111111111111111111111111111", 1n)],
          m,
        ),
    );
    const transaction = getBase64EncodedWireTransaction(compileTransaction(message));
    return rpc(SOLANA_FEE_PAYER_METHOD, [{ serializedTransaction: transaction, policyId: "pol_sol" }]);
  };

  it("refuses USER_DISABLED while the user is disabled, and sponsors again once enabled", async () => {
    expect((await evmStub()).result).toMatchObject({ isFinal: false });
    expect((await solanaRequest()).result).toBeDefined();

    expect((await admin.call("disable_user", { userId: carol.userId })).status).toBe(200);
    const evm = await evmStub();
    expect([evm.result, evm.error?.data?.code]).toEqual([undefined, "USER_DISABLED"]);
    const sol = await solanaRequest();
    expect([sol.result, sol.error?.data?.code]).toEqual([undefined, "USER_DISABLED"]);

    expect((await admin.call("enable_user", { userId: carol.userId })).status).toBe(200);
    expect((await evmStub()).result).toMatchObject({ isFinal: false });
    expect((await solanaRequest()).result).toBeDefined();
  });
});
