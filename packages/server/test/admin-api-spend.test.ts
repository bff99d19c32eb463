/**
 * The admin API's sponsorship spend (`sponsorship_spend`): after the service pays the fee of a user's
 * Solana transfer (on the real Solana runtime, litesvm behind JSON-RPC), the app's admin sees the day's
 * transaction, fee lamports and lamports moved under the policy; another app's admin sees nothing.
 * SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  SOLANA_FEE_PAYER_METHOD,
  toHex,
} from "@latchkey/protocol";
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import { type SolanaRpcNode, startSolanaRpc } from "../../../test-support/solana/rpc";
import { systemTransfer } from "../../../test-support/solana/transfer";
import type { AppConfig } from "../src/config";
import { freshDatabase, post, targetKey } from "./helpers";
import { AdminClient } from "./helpers/adminClient";

const API_KEY = "lk_spend_key_0123456789abcdef0";
const ADMIN_KEY = generateP256PrivateKey();
const OTHER_ADMIN_KEY = generateP256PrivateKey();
const adminPublic = (k: Uint8Array) => toHex(p256PublicKeyFromPrivate(k, true));
const SOL = 1_000_000_000n;

const SPEND_APP = {
  id: "spend-app",
  name: "Spend App",
  apiKeys: [API_KEY],
  allowedOrigins: ["http://spend.test"],
  signingPolicy: { adminKeys: [{ name: "ops", publicKey: adminPublic(ADMIN_KEY) }] },
  sponsorship: { policies: [], solanaPolicies: [{ id: "pol_open" }] },
} satisfies AppConfig;
const OTHER_APP = {
  id: "spend-other",
  name: "Other",
  apiKeys: ["lk_spendother_key_0123456789ab"],
  allowedOrigins: ["http://other.test"],
  signingPolicy: { adminKeys: [{ name: "theirs", publicKey: adminPublic(OTHER_ADMIN_KEY) }] },
} satisfies AppConfig;

type Day = { day: string; policyId: string; chain: string; operations: number; feeLamports?: string };

describe.each(["sqlite", "postgres"] as const)("admin API sponsorship spend (%s)", (kind) => {
  let node: SolanaRpcNode;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;

  beforeAll(async () => {
    node = await startSolanaRpc();
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      masterKey: randomBytes(32),
      dev: true,
      solana: { rpcUrl: node.url },
      apps: [SPEND_APP, OTHER_APP],
      logLevel: "silent",
    });
    node.svm.airdrop(address(await svc.service.solanaFeePayerAddress()), lamports(100n * SOL));
  });
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
    await node?.close();
  });

  it("reports a sponsored Solana transfer per policy and day, to this app's admin only", async () => {
    const orgOf = async (id: string) => (await svc.service.ctx.apps.byId(id))?.orgId as string;
    const admin = new AdminClient(svc.url, await orgOf(SPEND_APP.id), ADMIN_KEY);
    const other = new AdminClient(svc.url, await orgOf(OTHER_APP.id), OTHER_ADMIN_KEY);
    expect((await admin.call("sponsorship_spend")).json).toEqual({ days: [] });

    // A user signs up by email code (the dev mailbox).
    const headers = { authorization: `Bearer ${API_KEY}` };
    const email = `spender-${kind}@example.com`;
    const t = targetKey();
    const mailbox = devMailbox(svc.service);
    const sent = mailbox.count(email);
    const s = await post(svc.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, headers);
    expect(s.status).toBe(200);
    const o = await post(
      svc.url,
      "/signer/v1/otp",
      {
        orgId: s.json.orgId,
        otpId: s.json.otpId,
        otpCode: await mailbox.otpCode(email, sent),
        targetPublicKey: t.publicKey,
      },
      headers,
    );
    expect(o.status).toBe(200);
    const user = address(s.json.solanaAddress as string);
    node.svm.airdrop(user, lamports(2n * SOL));

    // The service pays the fee of a 0.005 SOL transfer.
    const rpc = createSolanaRpc(node.url);
    const blockhash = (await rpc.getLatestBlockhash().send()).value;
    const to = (await generateKeyPairSigner()).address;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(user, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions([systemTransfer(user, to, 5_000_000n)], m),
    );
    const res = await fetch(`${svc.url}/rpc/v1`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: SOLANA_FEE_PAYER_METHOD,
        params: [
          {
            policyId: "pol_open",
            serializedTransaction: getBase64EncodedWireTransaction(compileTransaction(message)),
          },
        ],
      }),
    });
    const answer = (await res.json()) as { result?: unknown; error?: unknown };
    expect(answer.error).toBeUndefined();

    const spend = await admin.call("sponsorship_spend");
    expect(spend.status).toBe(200);
    const days = spend.json.days as Day[];
    const today = new Date().toISOString().slice(0, 10);
    expect(days).toHaveLength(1);
    expect(days[0]).toMatchObject({
      day: today,
      policyId: "pol_open",
      chain: "solana",
      operations: 1,
      lamports: "5000000",
    });
    expect(BigInt(days[0]?.feeLamports ?? "0")).toBeGreaterThan(0n);
    // Filtered to another policy or an earlier range: nothing.
    expect((await admin.call("sponsorship_spend", { policyId: "pol_none" })).json).toEqual({ days: [] });
    expect(
      (await admin.call("sponsorship_spend", { fromDay: "2020-01-01", toDay: "2020-01-31" })).json,
    ).toEqual({ days: [] });
    const bad = await admin.call("sponsorship_spend", { fromDay: "yesterday" });
    expect([bad.status, bad.json.code]).toEqual([400, "INVALID_REQUEST"]);
    // Another app's admin sees none of it.
    expect((await other.call("sponsorship_spend")).json).toEqual({ days: [] });
  });
});
