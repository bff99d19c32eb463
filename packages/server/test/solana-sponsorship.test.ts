/**
 * Solana fee sponsorship served by the service (`latchkey_requestFeePayer` at /rpc/v1), on the real Solana
 * runtime: litesvm behind JSON-RPC (test-support/solana/rpc.ts). Users sign up by email; the client side
 * builds transactions with @solana/kit, its own address as fee payer, and signs what the service returns
 * through the signer API, as the embedded wallet does.
 */
import { randomBytes } from "node:crypto";
import { SOLANA_FEE_PAYER_METHOD, stampWithPrivateKey } from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Instruction,
  lamports,
  pipe,
  type Rpc,
  type SignatureBytes,
  type SolanaRpcApi,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
  type TransactionMessageBytes,
} from "@solana/kit";
import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import { type SolanaRpcNode, startSolanaRpc } from "../../../test-support/solana/rpc";
import { systemTransfer } from "../../../test-support/solana/transfer";
import { type AppConfig, appConfigSchema, fileConfigSchema } from "../src/config";
import { createService } from "../src/dev";
import { attachDevIdentityProvider } from "../src/dev/devStack";
import { freshDatabase, post, signBody, stamped, targetKey } from "./helpers";

const API_KEY = "lk_solana_key_0123456789abcdef";
const SYSTEM = address("11111111111111111111111111111111");
const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
const MEMO = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const SOL = 1_000_000_000n;

function solanaApp(): AppConfig {
  return {
    id: "solana-app",
    name: "Solana App",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://solana.test"],
    sponsorship: {
      policies: [{ id: "pol_evm", chainId: 1 }],
      solanaPolicies: [
        { id: "pol_open" },
        {
          id: "pol_transfers",
          allowedPrograms: [{ programId: SYSTEM, instructions: ["02000000"] }],
          limits: { lamportsPerTransaction: 1_000_000_000, feeLamportsPerTransaction: 20_000 },
        },
        { id: "pol_quota", limits: { transactionsPerUserPerDay: 2 } },
        { id: "pol_app_budget", limits: { feeLamportsPerAppPerDay: "15000" } },
        { id: "pol_concurrent", limits: { transactionsPerUserPerDay: 3 } },
      ],
    },
  };
}

function u32u64(tag: number, value: bigint, size = 12): Uint8Array {
  const data = new Uint8Array(size);
  const view = new DataView(data.buffer);
  view.setUint32(0, tag, true);
  view.setBigUint64(4, value, true);
  return data;
}

function computeUnitLimit(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

function computeUnitPrice(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

const newAddress = async () => (await generateKeyPairSigner()).address;

const decodeWire = (b64: string) => getTransactionDecoder().decode(getBase64Encoder().encode(b64));

interface User {
  orgId: string;
  userId: string;
  solanaAddress: Address;
  sessionKey: Uint8Array;
}

describe.each(["sqlite", "postgres"] as const)("Solana fee sponsorship (%s)", (kind) => {
  let node: SolanaRpcNode;
  let rpc: Rpc<SolanaRpcApi>;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  let feePayer: Address;
  const masterKey = randomBytes(32);

  const start = () =>
    startTestService({
      db: database.url,
      masterKey,
      dev: true,
      chains: [{ chainId: 1, rpcUrl: "http://127.0.0.1:9" }],
      solana: { rpcUrl: node.url },
      apps: [solanaApp()],
      logLevel: "silent",
    });

  beforeAll(async () => {
    node = await startSolanaRpc();
    rpc = createSolanaRpc(node.url);
    database = await freshDatabase(kind);
    svc = await start();
    feePayer = address(await svc.service.solanaFeePayerAddress());
    node.svm.airdrop(feePayer, lamports(100n * SOL));
  });
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
    await node?.close();
  });

  /** Signs a new user up by email code (the dev mailbox), with SOL on their Solana account. */
  async function signUp(email: string, apiKey = API_KEY, fund = 2n * SOL): Promise<User> {
    const headers = { authorization: `Bearer ${apiKey}` };
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
    const user = {
      orgId: s.json.orgId as string,
      userId: s.json.userId as string,
      solanaAddress: address(s.json.solanaAddress as string),
      sessionKey: await t.open(o.json.credentialBundle as string),
    };
    if (fund) node.svm.airdrop(user.solanaAddress, lamports(fund));
    return user;
  }

  /** The user's ed25519 signature over `message`, made by the service's signer API for their account. */
  async function signAs(user: User, message: Uint8Array, apiKey = API_KEY): Promise<Uint8Array> {
    const answer = await post(
      svc.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(user.orgId, user.solanaAddress, toHex(message), "HASH_FUNCTION_NOT_APPLICABLE"),
        user.sessionKey,
      ),
      { authorization: `Bearer ${apiKey}` },
    );
    expect(answer.status).toBe(200);
    return Buffer.from((answer.json.signature as string).slice(2), "hex").subarray(0, 64);
  }

  /** A transaction as the client sends it: its own address as fee payer, no signature yet. */
  async function wire(
    payer: string,
    instructions: Instruction[],
    options: { version?: 0 | "legacy"; blockhash?: Awaited<ReturnType<typeof latestBlockhash>> } = {},
  ): Promise<string> {
    const blockhash = options.blockhash ?? (await latestBlockhash());
    const message = pipe(
      createTransactionMessage({ version: options.version ?? 0 }),
      (m) => setTransactionMessageFeePayer(address(payer), m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    return getBase64EncodedWireTransaction(compileTransaction(message));
  }
  const latestBlockhash = async () => (await rpc.getLatestBlockhash().send()).value;

  /** The `X-Stamp` of a session key over `body`: the proof that a request comes from that user. */
  function stampOf(sessionKey: Uint8Array, body: string): Record<string, string> {
    const { stampHeaderName, stampHeaderValue } = stampWithPrivateKey(body, sessionKey);
    return { [stampHeaderName]: stampHeaderValue };
  }

  /** A raw call to `/rpc/v1` with the app's key; stamped by `by`'s session when given. */
  async function rpcCall(
    body: unknown,
    headers: Record<string, string> = {},
    url = svc.url,
    by?: Pick<User, "sessionKey">,
  ) {
    const sent = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${url}/rpc/v1`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${API_KEY}`,
        ...(by ? stampOf(by.sessionKey, sent) : {}),
        ...headers,
      },
      body: sent,
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  const feePayerCall = (policyId: string, serializedTransaction: string, id: number | string = 1) => ({
    jsonrpc: "2.0",
    id,
    method: SOLANA_FEE_PAYER_METHOD,
    params: [{ policyId, serializedTransaction }],
  });

  /** Asks the service to pay, stamped by `by` when given; the answer's JSON-RPC `result` or `error`. */
  async function requestFeePayer(
    policyId: string,
    serializedTransaction: string,
    url = svc.url,
    by?: Pick<User, "sessionKey">,
  ) {
    const { status, json } = await rpcCall(feePayerCall(policyId, serializedTransaction), {}, url, by);
    expect(status).toBe(200);
    return json as {
      result?: { serializedTransaction: string };
      error?: { code: number; message: string; data: Record<string, unknown> & { code: string } };
    };
  }

  /** The client's last step: the user signs the returned message, then it goes to the node. */
  async function signAndSend(user: User, sponsored: string, apiKey = API_KEY): Promise<string> {
    const tx = decodeWire(sponsored);
    const signature = (await signAs(user, Uint8Array.from(tx.messageBytes), apiKey)) as SignatureBytes;
    const signed: Transaction = { ...tx, signatures: { ...tx.signatures, [user.solanaAddress]: signature } };
    return rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
  }

  const balance = (a: string) => node.svm.getBalance(address(a)) ?? 0n;
  const spendRows = (userId: string) =>
    svc.service.ctx.db
      .selectFrom("solana_sponsorship_spend")
      .selectAll()
      .where("user_id", "=", userId)
      .execute();
  const usageOf = (policyId: string, scope: string) =>
    svc.service.ctx.db
      .selectFrom("sponsorship_usage")
      .selectAll()
      .where("policy_id", "=", policyId)
      .where("scope", "=", scope)
      .executeTakeFirst();

  let alice: User;

  it("pays a user's transfer: same instructions and blockhash, the fee payer signs, the user's slot is left empty; it lands and the fee payer pays only the fee", async () => {
    alice = await signUp(`alice-${kind}@example.com`);
    const bob = await newAddress();
    const blockhash = await latestBlockhash();
    const sent = await wire(alice.solanaAddress, [systemTransfer(alice.solanaAddress, bob, 5_000_000n)], {
      blockhash,
    });
    const answer = await requestFeePayer("pol_transfers", sent);
    expect(answer.error).toBeUndefined();
    const tx = decodeWire(answer.result?.serializedTransaction as string);

    // The fee payer first, signed; the user second, empty.
    expect(Object.keys(tx.signatures)).toEqual([feePayer, alice.solanaAddress]);
    const feePayerSignature = tx.signatures[feePayer] as SignatureBytes;
    expect(ed25519.verify(feePayerSignature, Uint8Array.from(tx.messageBytes), base58.decode(feePayer))).toBe(
      true,
    );
    expect(tx.signatures[alice.solanaAddress]).toBeNull();
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const original = getCompiledTransactionMessageDecoder().decode(decodeWire(sent).messageBytes);
    expect(message.staticAccounts[0]).toBe(feePayer);
    expect(message.lifetimeToken).toBe(blockhash.blockhash);
    expect(message.lifetimeToken).toBe(original.lifetimeToken);
    expect(message.version).toBe(0);

    const before = { alice: balance(alice.solanaAddress), feePayer: balance(feePayer) };
    const signature = await signAndSend(alice, answer.result?.serializedTransaction as string);
    expect(signature).toBe(getBase58Decoder().decode(feePayerSignature));
    const { value } = await rpc.getSignatureStatuses([signature as never]).send();
    expect(value[0]).toMatchObject({ err: null });
    expect(balance(bob)).toBe(5_000_000n);
    expect(before.alice - balance(alice.solanaAddress)).toBe(5_000_000n);
    expect(before.feePayer - balance(feePayer)).toBe(10_000n);

    // Recorded: the transaction by its id, its fee and the lamports it moves, for alice.
    const rows = await spendRows(alice.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      signature,
      app_id: "solana-app",
      policy_id: "pol_transfers",
      user_address: alice.solanaAddress,
      fee_lamports: "10000",
      lamports: "5000000",
    });
    expect(await usageOf("pol_transfers", `user:${alice.userId}`)).toMatchObject({
      operations: 1,
      wei: "10000",
    });
  });

  it("pays a legacy transaction with a priority fee, taking the bare params object; ComputeBudget is allowed under an allow-list", async () => {
    const bob = await newAddress();
    const sent = await wire(
      alice.solanaAddress,
      [
        computeUnitLimit(1_000),
        computeUnitPrice(2_000_000n),
        systemTransfer(alice.solanaAddress, bob, 2_000_000n),
      ],
      { version: "legacy" },
    );
    const { json } = await rpcCall({
      jsonrpc: "2.0",
      id: "bare",
      method: SOLANA_FEE_PAYER_METHOD,
      params: { policyId: "pol_transfers", serializedTransaction: sent },
    });
    expect(json.id).toBe("bare");
    const sponsored = json.result.serializedTransaction as string;
    expect(getCompiledTransactionMessageDecoder().decode(decodeWire(sponsored).messageBytes).version).toBe(
      "legacy",
    );
    const before = balance(feePayer);
    const signature = await signAndSend(alice, sponsored);
    expect(balance(bob)).toBe(2_000_000n);
    // 2 signatures × 5000 + 1000 units × 2 lamports: the most the fee payer can pay, and what it paid.
    const row = (await spendRows(alice.userId)).find((r) => r.signature === signature);
    expect(row?.fee_lamports).toBe("12000");
    expect(before - balance(feePayer)).toBe(12_000n);
  });

  it("sponsors the dev app's users under `dev-solana` when a Solana node is set", async () => {
    const devApp = svc.service.devApp;
    expect(devApp?.app.sponsorship.solanaPolicies.map((p) => p.id)).toEqual(["dev-solana"]);
    // `latchkey serve --dev` then adds its social sign-in providers to the dev app: the policies stay.
    const idp = await attachDevIdentityProvider(svc.service, svc.url);
    onTestFinished(() => idp.close());
    const dev = await signUp(`dev-${kind}@example.com`, svc.devApiKey as string);
    const bob = await newAddress();
    const sent = await wire(dev.solanaAddress, [systemTransfer(dev.solanaAddress, bob, 3_000_000n)]);
    const { json } = await rpcCall(
      feePayerCall("dev-solana", sent),
      { authorization: `Bearer ${svc.devApiKey}` },
      svc.url,
      dev,
    );
    await signAndSend(dev, json.result.serializedTransaction, svc.devApiKey);
    expect(balance(bob)).toBe(3_000_000n);
    // Another app's policy is not the dev app's, and the reverse.
    expect((await requestFeePayer("dev-solana", sent)).error?.data.code).toBe("POLICY_NOT_FOUND");
  });

  it("refuses a program the policy does not allow, an instruction outside its prefixes, too many lamports and too high a fee", async () => {
    const bob = await newAddress();
    const memo: Instruction = {
      programAddress: MEMO,
      accounts: [{ address: alice.solanaAddress, role: AccountRole.READONLY_SIGNER }],
      data: new TextEncoder().encode("hi"),
    };
    const cases: [Instruction[], number, string, Record<string, unknown>][] = [
      [
        [systemTransfer(alice.solanaAddress, bob, 1_000_000n), memo],
        -32003,
        "PROGRAM_NOT_ALLOWED",
        { programId: MEMO, instruction: 1 },
      ],
      [
        // System allocate (8), not a transfer.
        [
          {
            programAddress: SYSTEM,
            accounts: [{ address: alice.solanaAddress, role: AccountRole.WRITABLE_SIGNER }],
            data: u32u64(8, 10n),
          },
        ],
        -32003,
        "INSTRUCTION_NOT_ALLOWED",
        { programId: SYSTEM, instruction: 0 },
      ],
      [
        [
          systemTransfer(alice.solanaAddress, bob, 600_000_000n),
          systemTransfer(alice.solanaAddress, bob, 500_000_000n),
        ],
        -32003,
        "LAMPORTS_LIMIT_EXCEEDED",
        { limit: "lamportsPerTransaction", max: "1000000000", requested: "1100000000" },
      ],
      [
        [computeUnitPrice(1_000_000n), systemTransfer(alice.solanaAddress, bob, 1_000_000n)],
        -32003,
        "FEE_LIMIT_EXCEEDED",
        { limit: "feeLamportsPerTransaction", max: "20000", requested: "210000" },
      ],
    ];
    for (const [instructions, code, reason, data] of cases) {
      const answer = await requestFeePayer("pol_transfers", await wire(alice.solanaAddress, instructions));
      expect(answer.error, reason).toMatchObject({ code, data: { code: reason, ...data } });
    }
    // The default fee limit (100,000 lamports) holds where the policy sets none.
    const pricey = await requestFeePayer(
      "pol_open",
      await wire(alice.solanaAddress, [
        computeUnitPrice(1_000_000n),
        systemTransfer(alice.solanaAddress, bob, 1n),
      ]),
    );
    expect(pricey.error?.data).toMatchObject({ code: "FEE_LIMIT_EXCEEDED", max: "100000" });
    expect(await spendRows(alice.userId)).toHaveLength(2);
  });

  it("refuses a transaction that names the fee payer in an instruction: it could drain it", async () => {
    const bob = await newAddress();
    const cases: Instruction[][] = [
      // A transfer out of the fee payer's account.
      [systemTransfer(feePayer, bob, 1_000_000n), systemTransfer(alice.solanaAddress, bob, 1_000_000n)],
      // The fee payer only read by an instruction.
      [
        {
          ...systemTransfer(alice.solanaAddress, bob, 1_000_000n),
          accounts: [
            ...(systemTransfer(alice.solanaAddress, bob, 1n).accounts ?? []),
            { address: feePayer, role: AccountRole.READONLY },
          ],
        },
      ],
      // The fee payer as the program.
      [
        {
          programAddress: feePayer,
          accounts: [{ address: alice.solanaAddress, role: AccountRole.READONLY_SIGNER }],
        },
      ],
    ];
    for (const instructions of cases) {
      const answer = await requestFeePayer("pol_open", await wire(alice.solanaAddress, instructions));
      expect(answer.error).toMatchObject({
        code: -32003,
        message: expect.stringContaining("would drain or misuse the fee payer"),
        data: { code: "FEE_PAYER_MISUSE", feePayer },
      });
    }
    // Even as the client's fee payer and the only signer: a transfer out of it is refused.
    const drain = await requestFeePayer(
      "pol_open",
      await wire(feePayer, [systemTransfer(feePayer, bob, SOL)]),
    );
    expect(drain.error?.data.code).toBe("FEE_PAYER_MISUSE");
    expect(balance(bob)).toBe(0n);
  });

  it("refuses a transaction no user of this app signs: a stranger's, another app's user's, one whose user only paid the fee", async () => {
    const stranger = await newAddress();
    const bob = await newAddress();
    const strangers = await requestFeePayer(
      "pol_open",
      await wire(stranger, [systemTransfer(stranger, bob, 1_000_000n)]),
    );
    expect(strangers.error).toMatchObject({
      code: -32003,
      data: { code: "UNKNOWN_SENDER", signers: [stranger] },
    });
    const devUser = await signUp(`dev2-${kind}@example.com`, svc.devApiKey as string, 0n);
    const otherApp = await requestFeePayer(
      "pol_open",
      await wire(devUser.solanaAddress, [systemTransfer(devUser.solanaAddress, bob, 1_000_000n)]),
    );
    expect(otherApp.error?.data.code).toBe("UNKNOWN_SENDER");
    // Alice as the client's fee payer only: once the service pays, she signs nothing, so it is not hers.
    const feeOnly = await requestFeePayer(
      "pol_open",
      await wire(alice.solanaAddress, [systemTransfer(stranger, bob, 1n)]),
    );
    expect(feeOnly.error?.data).toMatchObject({ code: "UNKNOWN_SENDER", signers: [stranger] });
    const noSigner = await requestFeePayer(
      "pol_open",
      await wire(alice.solanaAddress, [{ programAddress: MEMO, data: new Uint8Array([1]) }]),
    );
    expect(noSigner.error?.data).toMatchObject({ code: "UNKNOWN_SENDER", signers: [] });
  });

  it("refuses an unknown policy and an EVM one", async () => {
    const sent = await wire(alice.solanaAddress, [
      systemTransfer(alice.solanaAddress, await newAddress(), 1_000_000n),
    ]);
    expect((await requestFeePayer("pol_nope", sent)).error).toMatchObject({
      code: -32602,
      data: { code: "POLICY_NOT_FOUND" },
    });
    const evm = await requestFeePayer("pol_evm", sent);
    expect(evm.error).toMatchObject({ code: -32602, data: { code: "POLICY_NOT_FOUND" } });
    expect(evm.error?.message).toMatch(/EVM user operations/);
  });

  it("refuses a v0 transaction that loads accounts from an address lookup table", async () => {
    const { blockhash } = await latestBlockhash();
    const messageBytes = getCompiledTransactionMessageEncoder().encode({
      version: 0,
      header: { numSignerAccounts: 1, numReadonlySignerAccounts: 0, numReadonlyNonSignerAccounts: 1 },
      staticAccounts: [alice.solanaAddress, SYSTEM],
      lifetimeToken: blockhash,
      instructions: [{ programAddressIndex: 1, accountIndices: [0, 2], data: u32u64(2, 1_000_000n) }],
      addressTableLookups: [
        { lookupTableAddress: await newAddress(), writableIndexes: [0], readonlyIndexes: [] },
      ],
    }) as TransactionMessageBytes;
    const tx = getTransactionEncoder().encode({ messageBytes, signatures: { [alice.solanaAddress]: null } });
    const answer = await requestFeePayer("pol_open", Buffer.from(tx).toString("base64"));
    expect(answer.error).toMatchObject({
      code: -32602,
      data: { code: "SOLANA_LOOKUP_TABLES_NOT_SUPPORTED" },
    });
  });

  it("refuses a blockhash the node no longer knows", async () => {
    const sent = await wire(alice.solanaAddress, [
      systemTransfer(alice.solanaAddress, await newAddress(), 1_000_000n),
    ]);
    node.svm.expireBlockhash();
    const answer = await requestFeePayer("pol_open", sent);
    expect(answer.error).toMatchObject({ code: -32003, data: { code: "SOLANA_BLOCKHASH_EXPIRED" } });
    expect(answer.error?.data.blockhash).toBe(
      getCompiledTransactionMessageDecoder().decode(decodeWire(sent).messageBytes).lifetimeToken,
    );
    // Built again on a recent blockhash, it is paid.
    const again = await wire(alice.solanaAddress, [
      systemTransfer(alice.solanaAddress, await newAddress(), 1_000_000n),
    ]);
    expect((await requestFeePayer("pol_open", again)).result?.serializedTransaction).toEqual(
      expect.any(String),
    );
  });

  it("holds a user's daily transactions; the same transaction asked for again counts once", async () => {
    const carol = await signUp(`carol-${kind}@example.com`);
    const bob = await newAddress();
    const first = await wire(carol.solanaAddress, [systemTransfer(carol.solanaAddress, bob, 1_000_000n)]);
    const second = await wire(carol.solanaAddress, [systemTransfer(carol.solanaAddress, bob, 2_000_000n)]);
    const third = await wire(carol.solanaAddress, [systemTransfer(carol.solanaAddress, bob, 3_000_000n)]);
    const a = await requestFeePayer("pol_quota", first, svc.url, carol);
    expect((await requestFeePayer("pol_quota", second, svc.url, carol)).result).toBeDefined();
    const refused = await requestFeePayer("pol_quota", third, svc.url, carol);
    expect(refused.error).toMatchObject({
      code: -32005,
      data: { code: "DAILY_LIMIT_EXCEEDED", limit: "transactionsPerUserPerDay", max: "2", used: "2" },
    });
    expect(refused.error?.data.resetsAt).toMatch(/T00:00:00.000Z$/);
    // The first again (a client retrying): the same signature, still two transactions.
    const retried = await requestFeePayer("pol_quota", first, svc.url, carol);
    expect(retried.result?.serializedTransaction).toBe(a.result?.serializedTransaction);
    expect(await usageOf("pol_quota", `user:${carol.userId}`)).toMatchObject({ operations: 2, wei: "20000" });
    expect((await spendRows(carol.userId)).filter((r) => r.policy_id === "pol_quota")).toHaveLength(2);
    // Another user still has their own two.
    const dave = await signUp(`dave-${kind}@example.com`);
    const daves = await wire(dave.solanaAddress, [systemTransfer(dave.solanaAddress, bob, 1_000_000n)]);
    expect((await requestFeePayer("pol_quota", daves, svc.url, dave)).result).toBeDefined();
  });

  it("charges a user's daily transactions only to requests that user stamped: naming them as a read-only signer uses none of them (W4)", async () => {
    const victim = await signUp(`victim-${kind}@example.com`);
    const mallory = await signUp(`mallory-${kind}@example.com`);
    const bob = await newAddress();
    const namesVictim = (n: number): Instruction => ({
      programAddress: MEMO,
      accounts: [{ address: victim.solanaAddress, role: AccountRole.READONLY_SIGNER }],
      data: new TextEncoder().encode(`not yours ${n}`),
    });
    const usage = () => usageOf("pol_quota", `user:${victim.userId}`);
    // Transactions that can never land (only the victim can sign them), as many as the victim's daily
    // limit and more: with the publishable key alone, and under another user's session. None is signed.
    for (const n of [1, 2, 3]) {
      const sent = await wire(await newAddress(), [namesVictim(n)]);
      const byKey = await requestFeePayer("pol_quota", sent);
      expect(byKey.error).toMatchObject({ code: -32003, data: { code: "USER_STAMP_REQUIRED" } });
      expect(byKey.result).toBeUndefined();
      const byOther = await requestFeePayer("pol_quota", sent, svc.url, mallory);
      expect(byOther.error).toMatchObject({ code: -32003, data: { code: "STAMP_USER_MISMATCH" } });
    }
    expect(await usage()).toBeUndefined();
    expect(await spendRows(victim.userId)).toHaveLength(0);
    // Mallory's own transaction that also names the victim is charged to mallory, the stamp's user.
    const mallorys = await wire(mallory.solanaAddress, [
      namesVictim(4),
      systemTransfer(mallory.solanaAddress, bob, 1_000_000n),
    ]);
    expect((await requestFeePayer("pol_quota", mallorys, svc.url, mallory)).result).toBeDefined();
    expect(await usageOf("pol_quota", `user:${mallory.userId}`)).toMatchObject({ operations: 1 });
    expect(await usage()).toBeUndefined();
    // A stamp must verify over the exact body.
    const body = JSON.stringify(feePayerCall("pol_quota", mallorys));
    const forged = await rpcCall(body, stampOf(victim.sessionKey, `${body} `));
    expect(forged).toMatchObject({ status: 401, json: { code: "INVALID_STAMP" } });

    // The victim's own two transactions are paid and land; a third is refused by their own limit.
    for (const amount of [1_000_000n, 2_000_000n]) {
      const own = await wire(victim.solanaAddress, [systemTransfer(victim.solanaAddress, bob, amount)]);
      const answer = await requestFeePayer("pol_quota", own, svc.url, victim);
      expect(answer.error).toBeUndefined();
      await signAndSend(victim, answer.result?.serializedTransaction as string);
    }
    expect(balance(bob)).toBe(3_000_000n);
    expect(await usage()).toMatchObject({ operations: 2 });
    const third = await wire(victim.solanaAddress, [systemTransfer(victim.solanaAddress, bob, 3_000_000n)]);
    expect((await requestFeePayer("pol_quota", third, svc.url, victim)).error?.data).toMatchObject({
      code: "DAILY_LIMIT_EXCEEDED",
      limit: "transactionsPerUserPerDay",
    });
  });

  it("holds the app's daily fee budget across its users", async () => {
    const erin = await signUp(`erin-${kind}@example.com`);
    const frank = await signUp(`frank-${kind}@example.com`);
    const bob = await newAddress();
    const erins = await wire(erin.solanaAddress, [systemTransfer(erin.solanaAddress, bob, 1_000_000n)]);
    expect((await requestFeePayer("pol_app_budget", erins)).result).toBeDefined();
    const franks = await wire(frank.solanaAddress, [systemTransfer(frank.solanaAddress, bob, 1_000_000n)]);
    const refused = await requestFeePayer("pol_app_budget", franks);
    expect(refused.error).toMatchObject({
      code: -32005,
      data: { code: "DAILY_LIMIT_EXCEEDED", limit: "feeLamportsPerAppPerDay", max: "15000", used: "10000" },
    });
    expect(await spendRows(frank.userId)).toHaveLength(0);
  });

  // On PostgreSQL two instances share the database (two SQLite instances in one process cannot: see the
  // EVM sponsorship test).
  it("holds a daily limit across instances under concurrent requests", async () => {
    const grace = await signUp(`grace-${kind}@example.com`);
    const second = kind === "postgres" ? await start() : svc;
    try {
      const bob = await newAddress();
      const blockhash = await latestBlockhash();
      const txs = await Promise.all(
        [1n, 2n, 3n, 4n, 5n, 6n].map((n) =>
          wire(grace.solanaAddress, [systemTransfer(grace.solanaAddress, bob, n * 1_000_000n)], {
            blockhash,
          }),
        ),
      );
      const answers = await Promise.all(
        txs.map((tx, i) => requestFeePayer("pol_concurrent", tx, i % 2 ? second.url : svc.url, grace)),
      );
      expect(answers.filter((a) => a.result)).toHaveLength(3);
      expect(answers.filter((a) => a.error).map((a) => a.error?.data.code)).toEqual(
        Array(3).fill("DAILY_LIMIT_EXCEEDED"),
      );
      expect(await spendRows(grace.userId)).toHaveLength(3);
      expect(await usageOf("pol_concurrent", `user:${grace.userId}`)).toMatchObject({ operations: 3 });
    } finally {
      if (second !== svc) await second.close();
    }
  });

  it("answers malformed input with JSON-RPC errors and HTTP 200, never a 500", async () => {
    const good = await wire(alice.solanaAddress, [
      systemTransfer(alice.solanaAddress, await newAddress(), 1_000_000n),
    ]);
    const goodBytes = Buffer.from(good, "base64");
    const call = (params: unknown) => ({ jsonrpc: "2.0", id: 7, method: SOLANA_FEE_PAYER_METHOD, params });
    const tx = (serializedTransaction: unknown) => call([{ policyId: "pol_open", serializedTransaction }]);
    const b64 = (bytes: ArrayLike<number>) => Buffer.from(Uint8Array.from(bytes)).toString("base64");
    // A valid message whose instruction names an account index past the list.
    const message = getCompiledTransactionMessageDecoder().decode(decodeWire(good).messageBytes) as {
      instructions: { accountIndices?: number[] }[];
    };
    const badIndex = getTransactionEncoder().encode({
      messageBytes: getCompiledTransactionMessageEncoder().encode({
        ...message,
        instructions: [{ ...message.instructions[0], accountIndices: [0, 9] }],
      } as never) as TransactionMessageBytes,
      signatures: { [alice.solanaAddress]: null },
    });
    const twoPrices = await wire(alice.solanaAddress, [
      computeUnitPrice(1n),
      computeUnitPrice(1n),
      systemTransfer(alice.solanaAddress, await newAddress(), 1_000_000n),
    ]);
    const shortTransfer = await wire(alice.solanaAddress, [
      {
        ...systemTransfer(alice.solanaAddress, await newAddress(), 1n),
        data: new Uint8Array([2, 0, 0, 0, 1]),
      },
    ]);
    const cases: [unknown, number, string][] = [
      [call(undefined), -32602, "INVALID_PARAMS"],
      [call([]), -32602, "INVALID_PARAMS"],
      [call([{}]), -32602, "INVALID_PARAMS"],
      [call([{ policyId: "pol_open" }]), -32602, "INVALID_PARAMS"],
      [call([{ serializedTransaction: good }]), -32602, "INVALID_PARAMS"],
      [call([{ policyId: 5, serializedTransaction: good }]), -32602, "INVALID_PARAMS"],
      [call([{ policyId: "", serializedTransaction: good }]), -32602, "INVALID_PARAMS"],
      [call([{ policyId: "pol_open", serializedTransaction: good }, {}]), -32602, "INVALID_PARAMS"],
      [call(["pol_open", good]), -32602, "INVALID_PARAMS"],
      [call([null]), -32602, "INVALID_PARAMS"],
      [call("x"), -32600, "INVALID_REQUEST"],
      [tx(42), -32602, "INVALID_PARAMS"],
      [tx(null), -32602, "INVALID_PARAMS"],
      [tx(""), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx("not base64!"), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(good.slice(0, -1)), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx("AAAA"), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(new Uint8Array(200).fill(7))), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(new Uint8Array(200).fill(255))), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(new Uint8Array(1300).fill(1))), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx("A".repeat(4000)), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(Buffer.concat([goodBytes, Buffer.from([0])]))), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(goodBytes.subarray(0, goodBytes.length - 3))), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(b64(badIndex)), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(twoPrices), -32602, "SOLANA_TRANSACTION_INVALID"],
      [tx(shortTransfer), -32602, "SOLANA_TRANSACTION_INVALID"],
    ];
    for (const [body, code, reason] of cases) {
      const { status, json } = await rpcCall(body);
      expect(status, JSON.stringify(body).slice(0, 200)).toBe(200);
      expect(json.error, JSON.stringify(body).slice(0, 200)).toMatchObject({ code, data: { code: reason } });
      expect(json.error.message).toEqual(expect.any(String));
    }
    // In a batch, beside a notification (which runs nothing).
    const batch = await rpcCall([
      tx("AAAA"),
      {
        jsonrpc: "2.0",
        method: SOLANA_FEE_PAYER_METHOD,
        params: [{ policyId: "pol_open", serializedTransaction: good }],
      },
      { ...tx(good), id: 8 },
    ]);
    expect(batch.json.map((a: { id: unknown }) => a.id)).toEqual([7, 8]);
    expect(batch.json[1].result.serializedTransaction).toEqual(expect.any(String));
    // The app's key is required.
    expect((await rpcCall(tx(good), { authorization: "" })).status).toBe(401);
  });

  it("refuses when the fee payer cannot pay, or the node does not answer (the dev app's policy, on fresh services)", async () => {
    const services = [
      {
        solana: { rpcUrl: node.url },
        expect: { code: -32002, data: { code: "SOLANA_SPONSORSHIP_UNAVAILABLE" } },
      },
      {
        solana: { rpcUrl: "http://127.0.0.1:9" },
        expect: { code: -32002, data: { code: "CHAIN_UNAVAILABLE" } },
      },
    ];
    for (const s of services) {
      const other = await startTestService({ dev: true, solana: s.solana, logLevel: "silent" });
      try {
        const otherFeePayer = await other.service.solanaFeePayerAddress();
        expect(otherFeePayer).not.toBe(feePayer);
        const headers = { authorization: `Bearer ${other.devApiKey}` };
        const t = targetKey();
        const email = `poor-${kind}@example.com`;
        const signup = await post(
          other.url,
          "/signer/v1/signup",
          { email, targetPublicKey: t.publicKey },
          headers,
        );
        const otp = await post(
          other.url,
          "/signer/v1/otp",
          {
            orgId: signup.json.orgId,
            otpId: signup.json.otpId,
            otpCode: await devMailbox(other.service).otpCode(email),
            targetPublicKey: t.publicKey,
          },
          headers,
        );
        const user = address(signup.json.solanaAddress as string);
        const sent = await wire(user, [systemTransfer(user, await newAddress(), 1_000_000n)]);
        const sessionKey = await t.open(otp.json.credentialBundle as string);
        const answer = await rpcCall(feePayerCall("dev-solana", sent), headers, other.url, { sessionKey });
        expect(answer.status).toBe(200);
        expect(answer.json.error).toMatchObject(s.expect);
        expect(answer.json.error.message).not.toContain("127.0.0.1");
        const rows = await other.service.ctx.db.selectFrom("solana_sponsorship_spend").selectAll().execute();
        expect(rows).toHaveLength(0);
      } finally {
        await other.close();
      }
    }
  });

  it("keeps the fee payer's key sealed at rest, the same across restarts", async () => {
    const row = await svc.service.ctx.db
      .selectFrom("service_keys")
      .selectAll()
      .where("purpose", "=", "solanaFeePayer")
      .executeTakeFirstOrThrow();
    expect(row.address).toBe(feePayer);
    const key = await svc.service.ctx.keyring.open(row.sealed_key, `service_key:${row.id}`);
    expect(base58.encode(ed25519.getPublicKey(key))).toBe(feePayer);
    for (const encoding of ["hex", "base64", "base64url"] as const)
      expect(row.sealed_key).not.toContain(key.toString(encoding));
    expect(row.sealed_key).not.toContain(base58.encode(key));
    expect(row.sealed_key).toMatch(/^v1\./);
    await svc.close();
    svc = await start();
    expect(await svc.service.solanaFeePayerAddress()).toBe(feePayer);
  });
});

describe("Solana sponsorship config", () => {
  const app = (sponsorship: unknown) => appConfigSchema.safeParse({ id: "a", name: "A", sponsorship });
  const firstIssue = (sponsorship: unknown) => {
    const r = app(sponsorship);
    // Paths from under `sponsorship`.
    return r.success
      ? undefined
      : { path: r.error.issues[0]?.path.slice(1).join("."), message: r.error.issues[0]?.message };
  };

  it("takes solanaPolicies beside policies, with defaults, lamports as numbers or decimal strings", () => {
    const parsed = appConfigSchema.parse({
      id: "a",
      name: "A",
      sponsorship: {
        solanaPolicies: [
          { id: "sol_open" },
          {
            id: "sol_transfers",
            allowedPrograms: [
              { programId: "11111111111111111111111111111111", instructions: ["0x02000000", "0B"] },
              { programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" },
            ],
            limits: {
              lamportsPerTransaction: 10_000_000_000,
              feeLamportsPerTransaction: "50000",
              transactionsPerUserPerDay: 10,
              feeLamportsPerUserPerDay: 1_000_000,
              transactionsPerAppPerDay: 1000,
              feeLamportsPerAppPerDay: "18446744073709551615",
            },
          },
        ],
      },
    });
    expect(parsed.sponsorship).toEqual({
      policies: [],
      solanaPolicies: [
        { id: "sol_open", limits: { feeLamportsPerTransaction: "100000" } },
        {
          id: "sol_transfers",
          allowedPrograms: [
            { programId: "11111111111111111111111111111111", instructions: ["02000000", "0b"] },
            { programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" },
          ],
          limits: {
            lamportsPerTransaction: "10000000000",
            feeLamportsPerTransaction: "50000",
            transactionsPerUserPerDay: 10,
            feeLamportsPerUserPerDay: "1000000",
            transactionsPerAppPerDay: 1000,
            feeLamportsPerAppPerDay: "18446744073709551615",
          },
        },
      ],
    });
    // EVM policies alone keep working as they did.
    expect(app({ policies: [{ id: "p", chainId: 1 }] }).data?.sponsorship).toMatchObject({
      policies: [{ id: "p", chainId: 1, limits: {} }],
      solanaPolicies: [],
    });
  });

  it("refuses bad program ids, prefixes, limits, unknown fields and ids listed twice across both lists", () => {
    expect(
      firstIssue({ solanaPolicies: [{ id: "s", allowedPrograms: [{ programId: "0xabc" }] }] }),
    ).toMatchObject({
      path: "solanaPolicies.0.allowedPrograms.0.programId",
      message: expect.stringContaining("Solana address"),
    });
    expect(
      firstIssue({
        solanaPolicies: [
          {
            id: "s",
            allowedPrograms: [{ programId: "11111111111111111111111111111111", instructions: ["2"] }],
          },
        ],
      }),
    ).toMatchObject({ path: "solanaPolicies.0.allowedPrograms.0.instructions.0" });
    expect(
      firstIssue({
        solanaPolicies: [
          { id: "s", allowedPrograms: [{ programId: "11111111111111111111111111111111", instructions: [] }] },
        ],
      }),
    ).toMatchObject({ path: "solanaPolicies.0.allowedPrograms.0.instructions" });
    expect(
      firstIssue({ solanaPolicies: [{ id: "s", limits: { lamportsPerTransaction: -1 } }] }),
    ).toMatchObject({
      path: "solanaPolicies.0.limits.lamportsPerTransaction",
    });
    expect(
      firstIssue({ solanaPolicies: [{ id: "s", limits: { feeLamportsPerTransaction: "1e5" } }] }),
    ).toMatchObject({
      path: "solanaPolicies.0.limits.feeLamportsPerTransaction",
    });
    expect(
      firstIssue({
        solanaPolicies: [{ id: "s", limits: { feeLamportsPerTransaction: "18446744073709551616" } }],
      }),
    ).toMatchObject({
      message: "must fit in 64 bits",
    });
    expect(
      firstIssue({ solanaPolicies: [{ id: "s", limits: { transactionsPerUserPerDay: 0 } }] }),
    ).toMatchObject({
      path: "solanaPolicies.0.limits.transactionsPerUserPerDay",
    });
    expect(firstIssue({ solanaPolicies: [{ id: "s", limits: { weiPerAppPerDay: "1" } }] })).toMatchObject({
      path: "solanaPolicies.0.limits",
    });
    expect(firstIssue({ solanaPolicies: [{ id: "s", chainId: 1 }] })).toMatchObject({
      path: "solanaPolicies.0",
    });
    expect(firstIssue({ solanaPolicies: [{ id: "bad id" }] })).toMatchObject({ path: "solanaPolicies.0.id" });
    expect(firstIssue({ solanaPolicies: [{ id: "s" }, { id: "s" }] })).toEqual({
      path: "solanaPolicies.1.id",
      message: "policy s is listed twice",
    });
    expect(firstIssue({ policies: [{ id: "s", chainId: 1 }], solanaPolicies: [{ id: "s" }] })).toEqual({
      path: "solanaPolicies.0.id",
      message: "policy s is listed twice",
    });
  });

  it("takes solana.rpcUrl in the config file and as a service option, and refuses a bad one", async () => {
    expect(fileConfigSchema.parse({ solana: { rpcUrl: "http://127.0.0.1:8899" } }).solana).toEqual({
      rpcUrl: "http://127.0.0.1:8899",
    });
    expect(fileConfigSchema.safeParse({ solana: { rpcUrl: "nope" } }).success).toBe(false);
    expect(fileConfigSchema.safeParse({ solana: { url: "http://127.0.0.1:8899" } }).success).toBe(false);
    await expect(
      createService({ db: ":memory:", masterKey: randomBytes(32), dev: true, solana: { rpcUrl: "nope" } }),
    ).rejects.toThrow(/Invalid solana/);
  });
});
