import { fileURLToPath } from "node:url";
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type KitTransactionLike,
  SignerError,
  type SignerOptions,
  SolanaError,
  type SolanaSigner,
  type SolanaTransactionLike,
  sendSolanaTransaction,
} from "@latchkey/core";
import { registerSolanaWallet, solana } from "@latchkey/core/solana";
import { ed25519 } from "@noble/curves/ed25519";
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createDefaultRpcTransport,
  createSolanaRpc,
  createSolanaRpcFromTransport,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Instruction,
  lamports,
  pipe,
  type Signature,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import type {
  SolanaSignAndSendTransactionFeature,
  SolanaSignMessageFeature,
  SolanaSignTransactionFeature,
} from "@solana/wallet-standard-features";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import type { Wallet } from "@wallet-standard/base";
import type {
  StandardConnectFeature,
  StandardDisconnectFeature,
  StandardEventsChangeProperties,
  StandardEventsFeature,
} from "@wallet-standard/features";
import { build, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SolanaRpcNode, startSolanaRpc } from "../../../test-support/solana/rpc";
import { systemTransfer } from "../../../test-support/solana/transfer";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// One Solana node (litesvm behind JSON-RPC) and one service whose dev app has the `dev-solana` fee payer
// policy (the service knows the node); every test sends real transactions.
const SOL = 1_000_000_000n;
const FEE = 5_000n;
/** A fresh account needs this much to exist (0 bytes of data). */
const RENT_EXEMPT = 890_880n;
const DEV_POLICY = "dev-solana";
const _SYSTEM_PROGRAM = address("11111111111111111111111111111111");

let node: SolanaRpcNode;
let svc: TestService;
let feePayer: string;
/** Funded; its signer defaults to the node (`solana.rpcUrl`). */
let funded: Awaited<ReturnType<typeof signInWithOtp>>;
/** Holds no SOL; its signer has no Solana defaults. */
let unfunded: Awaited<ReturnType<typeof signInWithOtp>>;

const balance = (account: string) => node.svm.getBalance(address(account)) ?? 0n;
const fresh = () => Keypair.generate().publicKey.toBase58();
const solanaAddressOf = (s: typeof funded) => s.user?.solanaAddress as string;

/** An Rpc over the node that counts calls and, `staleAnswers` times, expires the blockhash it just gave. */
function staleBlockhashRpc(staleAnswers: number) {
  const transport = createDefaultRpcTransport({ url: node.url });
  const calls: string[] = [];
  let stale = staleAnswers;
  const rpc = createSolanaRpcFromTransport(async (request) => {
    const method = (request.payload as { method: string }).method;
    calls.push(method);
    const response = await transport(request);
    if (method === "getLatestBlockhash" && stale > 0) {
      stale -= 1;
      node.svm.expireBlockhash();
    }
    return response as never;
  });
  return { rpc, calls: (method: string) => calls.filter((m) => m === method).length };
}

async function errorOf(promise: Promise<unknown>): Promise<SolanaError | SignerError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );
  if (!(error instanceof SolanaError) && !(error instanceof SignerError)) throw error;
  return error;
}

/** A second Signer over `signer`'s stored session (same key holder and storage), with other options. */
async function sameUser(signer: typeof funded, options: Partial<SignerOptions>) {
  const other = createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: signer.keyHolder,
    storage: signer.sessionManager.storage,
    window: null,
    ...options,
  });
  await other.init();
  expect(other.user?.solanaAddress).toBe(signer.user?.solanaAddress);
  return other;
}

beforeAll(async () => {
  node = await startSolanaRpc();
  svc = await startService({ solana: { rpcUrl: node.url } });
  feePayer = await svc.service.solanaFeePayerAddress();
  node.svm.airdrop(address(feePayer), lamports(10n * SOL));
  [funded, unfunded] = await Promise.all([
    signInWithOtp(svc, "sol-funded@example.com", { solana: solana({ rpcUrl: node.url }) }),
    signInWithOtp(svc, "sol-unfunded@example.com", { solana: solana() }),
  ]);
  node.svm.airdrop(address(solanaAddressOf(funded)), lamports(5n * SOL));
});
afterAll(async () => {
  await Promise.all([svc?.close(), node?.close()]);
});

describe("sendSolanaTransaction", () => {
  it("sends a transfer, confirmed: the recipient gets the amount, the user pays it and the 5000-lamport fee", async () => {
    const user = solanaAddressOf(funded);
    const to = fresh();
    const before = balance(user);
    const { signature } = await sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: 1_000_000n },
    });
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    const [status] = (
      await createSolanaRpc(node.url)
        .getSignatureStatuses([signature as Signature])
        .send()
    ).value;
    expect(status).toMatchObject({ err: null, confirmationStatus: "finalized" });
    expect(balance(to)).toBe(1_000_000n);
    expect(before - balance(user)).toBe(1_000_000n + FEE);
  });

  it("sends @solana/kit instructions and @solana/web3.js v1 TransactionInstructions in one transaction", async () => {
    const user = solanaAddressOf(funded);
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const before = balance(user);
    await sendSolanaTransaction(funded, {
      instructions: [
        systemTransfer(user, a, RENT_EXEMPT),
        systemTransfer(user, b, RENT_EXEMPT + 1n),
        SystemProgram.transfer({
          fromPubkey: new PublicKey(user),
          toPubkey: new PublicKey(c),
          lamports: Number(RENT_EXEMPT + 2n),
        }),
      ],
    });
    expect([balance(a), balance(b), balance(c)]).toEqual([RENT_EXEMPT, RENT_EXEMPT + 1n, RENT_EXEMPT + 2n]);
    expect(before - balance(user)).toBe(3n * RENT_EXEMPT + 3n + FEE);
  });

  it("sends through a connection given as a URL or as a @solana/kit Rpc", async () => {
    const to = fresh();
    // Another Signer of the funded user, without Solana defaults: the connection is all it has.
    const payer = await sameUser(funded, { solana: solana() });
    await sendSolanaTransaction(payer, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      connection: node.url,
    });
    const { rpc, calls } = staleBlockhashRpc(0);
    await sendSolanaTransaction(payer, { transfer: { toAddress: to, amount: 7 }, connection: rpc });
    expect(balance(to)).toBe(RENT_EXEMPT + 7n);
    expect([calls("getLatestBlockhash"), calls("sendTransaction")]).toEqual([1, 1]);
    expect(calls("getSignatureStatuses")).toBeGreaterThanOrEqual(1);
    await expect(
      sendSolanaTransaction(payer, { transfer: { toAddress: to, amount: 1 } }),
    ).rejects.toMatchObject({
      code: "SOLANA_CONNECTION_MISSING",
    });
  });

  it("the signer option overrides who signs and pays: its account is charged, the user's is not touched", async () => {
    const own = Keypair.generate();
    const ownAddress = own.publicKey.toBase58();
    const seed = own.secretKey.slice(0, 32);
    node.svm.airdrop(address(ownAddress), lamports(SOL));
    let signatures = 0;
    const override: SolanaSigner = {
      address: ownAddress,
      signMessage: async (message) => ed25519.sign(message as Uint8Array, seed),
      signTransaction: async <T extends SolanaTransactionLike>(transaction: T) => {
        const kit = transaction as unknown as KitTransactionLike;
        signatures++;
        const signature = ed25519.sign(kit.messageBytes as Uint8Array, seed);
        return { ...kit, signatures: { ...kit.signatures, [ownAddress]: signature } } as unknown as T;
      },
      signTransactions: () => Promise.reject(new Error("not used")),
      signMessages: () => Promise.reject(new Error("not used")),
    };
    const user = solanaAddressOf(funded);
    const to = fresh();
    const userBefore = balance(user);
    await sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      signer: override,
    });
    expect(signatures).toBe(1);
    expect(balance(to)).toBe(RENT_EXEMPT);
    expect(balance(ownAddress)).toBe(SOL - RENT_EXEMPT - FEE);
    expect(balance(user)).toBe(userBefore);
  });

  it("a user with no SOL: INSUFFICIENT_FUNDS", async () => {
    const error = await errorOf(
      sendSolanaTransaction(unfunded, {
        transfer: { toAddress: fresh(), amount: RENT_EXEMPT },
        connection: node.url,
      }),
    );
    expect(error.code).toBe("INSUFFICIENT_FUNDS");
    expect(error.message).toMatch(/^The Solana account holds too little SOL/);
  });

  it("a transfer of more than the user holds: INSUFFICIENT_FUNDS; too little for a new account: INSUFFICIENT_FUNDS_FOR_RENT", async () => {
    const more = await errorOf(
      sendSolanaTransaction(funded, { transfer: { toAddress: fresh(), amount: 1_000n * SOL } }),
    );
    expect(more.code).toBe("INSUFFICIENT_FUNDS");
    const rent = await errorOf(
      sendSolanaTransaction(funded, { transfer: { toAddress: fresh(), amount: 1_000 } }),
    );
    expect(rent.code).toBe("INSUFFICIENT_FUNDS_FOR_RENT");
    expect(rent.message).toMatch(/rent-exempt minimum/);
  });

  it("refuses without a signed-in user, without a Solana address, without a connection, or with both inputs", async () => {
    const signedOut = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      solana: solana({ rpcUrl: node.url }),
    });
    const transfer = { toAddress: fresh(), amount: 1 };
    expect(await errorOf(sendSolanaTransaction(signedOut, { transfer }))).toMatchInlineSnapshot(
      `[SignerError: Signer not authenticated]`,
    );

    // A stored session whose user has no Solana address (an account made before Solana existed).
    const stored = funded.sessionManager.getSession();
    if (!stored) throw new Error("no session");
    const { solanaAddress: _, ...withoutSolana } = stored.user;
    const noSolana = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: funded.keyHolder,
      storage: createMemoryStorage(),
      window: null,
      solana: solana({ rpcUrl: node.url }),
    });
    noSolana.sessionManager.setSession({ ...stored, user: withoutSolana });
    await noSolana.init();
    expect(await errorOf(sendSolanaTransaction(noSolana, { transfer }))).toMatchInlineSnapshot(
      `[SignerError: no solana address]`,
    );

    expect(await errorOf(sendSolanaTransaction(unfunded, { transfer }))).toMatchInlineSnapshot(
      `[SolanaError: Missing connection: no Solana RPC (pass connection, or set solana.rpcUrl in the signer options)]`,
    );

    // Without solana() of @latchkey/core/solana, nothing can send (this entry never loads @solana/kit itself).
    const notConfigured = await sameUser(funded, {});
    const error = await errorOf(sendSolanaTransaction(notConfigured, { transfer, connection: node.url }));
    expect(error).toMatchObject({ name: "SolanaError", code: "SOLANA_NOT_CONFIGURED" });
    expect(error).toMatchInlineSnapshot(
      `[SolanaError: Solana is not configured: pass solana: solana({ rpcUrl }) of @latchkey/core/solana to createSigner or LatchkeyProvider (and npm i @solana/kit)]`,
    );
    expect(
      await errorOf(
        sendSolanaTransaction(funded, { transfer, instructions: [systemTransfer(fresh(), fresh(), 1n)] }),
      ),
    ).toMatchInlineSnapshot(
      `[SolanaError: Invalid Solana transaction input: pass exactly one of instructions or transfer]`,
    );
    expect(
      await errorOf(sendSolanaTransaction(funded, { transfer: { toAddress: "nope", amount: 1 } })),
    ).toMatchInlineSnapshot(
      `[SolanaError: Invalid Solana transaction input: transfer.toAddress is not a Solana address: nope]`,
    );
  });

  it("refuses instructions that need another account's signature", async () => {
    const other = fresh();
    const error = await errorOf(
      sendSolanaTransaction(funded, { instructions: [systemTransfer(other, fresh(), 1n)] }),
    );
    expect(error.code).toBe("SOLANA_INVALID_INPUT");
    expect(error.message).toBe(
      `Invalid Solana transaction input: the instructions also need signatures from ${other}; pass their @solana/kit signers on the instructions' accounts`,
    );
  });

  it("signs with the @solana/kit signers the instructions carry (the user pays the fee)", async () => {
    const other = await generateKeyPairSigner();
    node.svm.airdrop(other.address, lamports(SOL));
    const user = solanaAddressOf(funded);
    const to = fresh();
    const [userBefore, otherBefore] = [balance(user), balance(other.address)];
    const instruction = systemTransfer(other.address, to, RENT_EXEMPT);
    await sendSolanaTransaction(funded, {
      instructions: [
        {
          ...instruction,
          accounts: [
            { address: other.address, role: AccountRole.WRITABLE_SIGNER, signer: other },
            ...(instruction.accounts ?? []).slice(1),
          ],
        } as Instruction,
      ],
    });
    expect(balance(to)).toBe(RENT_EXEMPT);
    expect(otherBefore - balance(other.address)).toBe(RENT_EXEMPT);
    expect(userBefore - balance(user)).toBe(2n * FEE);
  });

  it("a transaction the node dropped is sent again once its blockhash has expired", async () => {
    const to = fresh();
    const transport = createDefaultRpcTransport({ url: node.url });
    const seen: string[] = [];
    let dropped: (() => void) | undefined;
    const droppedOnce = new Promise<void>((resolve) => {
      dropped = resolve;
    });
    const rpc = createSolanaRpcFromTransport(async (request) => {
      const payload = request.payload as { id: unknown; method: string; params: unknown[] };
      seen.push(payload.method);
      if (payload.method === "sendTransaction" && dropped) {
        // Accepted, then lost on the way to the leader: the answer a node gives, and nothing lands.
        const wire = getTransactionDecoder().decode(getBase64Encoder().encode(payload.params[0] as string));
        dropped();
        dropped = undefined;
        const signature = getBase58Decoder().decode(Object.values(wire.signatures)[0] as Uint8Array);
        return { jsonrpc: "2.0", id: payload.id, result: signature } as never;
      }
      return transport(request);
    });
    const sending = sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      connection: rpc,
    });
    await droppedOnce;
    // 151 blocks later the dropped transaction's blockhash can no longer land.
    const nodeRpc = createSolanaRpc(node.url);
    for (let i = 1; i <= 151; i++)
      await nodeRpc.requestAirdrop(address(fresh()), lamports(RENT_EXEMPT + BigInt(i))).send();
    await sending;
    expect(balance(to)).toBe(RENT_EXEMPT);
    expect(seen.filter((m) => m === "getLatestBlockhash")).toHaveLength(2);
    expect(seen.filter((m) => m === "sendTransaction")).toHaveLength(2);
  });

  it("an expired blockhash is retried once with a fresh one", async () => {
    const to = fresh();
    const { rpc, calls } = staleBlockhashRpc(1);
    await sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      connection: rpc,
    });
    expect(balance(to)).toBe(RENT_EXEMPT);
    expect([calls("getLatestBlockhash"), calls("sendTransaction")]).toEqual([2, 2]);
  });

  it("a second expiry fails with BLOCKHASH_EXPIRED", async () => {
    const to = fresh();
    const { rpc, calls } = staleBlockhashRpc(2);
    const error = await errorOf(
      sendSolanaTransaction(funded, { transfer: { toAddress: to, amount: RENT_EXEMPT }, connection: rpc }),
    );
    expect(error.code).toBe("BLOCKHASH_EXPIRED");
    expect(error.message).toMatch(
      /^The transaction's blockhash expired before it was confirmed: it expired again/,
    );
    expect([calls("getLatestBlockhash"), calls("sendTransaction")]).toEqual([2, 2]);
    expect(balance(to)).toBe(0n);
  });

  it("sponsored: true without a policy id is refused before anything is sent", async () => {
    const error = await errorOf(
      sendSolanaTransaction(funded, { transfer: { toAddress: fresh(), amount: 1 }, sponsored: true }),
    );
    expect(error).toMatchInlineSnapshot(
      `[SolanaError: Missing policyId: a sponsored Solana transaction needs a policy (pass policyId, or set solana.policyId in the signer options)]`,
    );
  });
});

describe("sendSolanaTransaction, sponsored by the service's fee payer", () => {
  it("the user pays exactly the amount; the fee payer pays the fee (two signatures)", async () => {
    const user = solanaAddressOf(funded);
    const to = fresh();
    const [userBefore, payerBefore] = [balance(user), balance(feePayer)];
    const { signature } = await sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      policyId: DEV_POLICY,
    });
    expect(balance(to)).toBe(RENT_EXEMPT);
    expect(userBefore - balance(user)).toBe(RENT_EXEMPT);
    expect(payerBefore - balance(feePayer)).toBe(2n * FEE);
    // The transaction's id is the fee payer's signature.
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
  });

  it("a user holding no SOL sends a sponsored 0-lamport transfer", async () => {
    const user = solanaAddressOf(unfunded);
    expect(balance(user)).toBe(0n);
    const payerBefore = balance(feePayer);
    await sendSolanaTransaction(unfunded, {
      transfer: { toAddress: fresh(), amount: 0 },
      connection: node.url,
      policyId: DEV_POLICY,
    });
    expect(balance(user)).toBe(0n);
    expect(payerBefore - balance(feePayer)).toBe(2n * FEE);
  });

  it("SignerOptions.solana.policyId sponsors by default; sponsored: false pays the fee itself", async () => {
    const sponsoredByDefault = await sameUser(funded, {
      solana: solana({ rpcUrl: node.url, policyId: DEV_POLICY }),
    });
    const user = solanaAddressOf(funded);
    const to = fresh();
    let before = balance(user);
    await sendSolanaTransaction(sponsoredByDefault, { transfer: { toAddress: to, amount: RENT_EXEMPT } });
    expect(before - balance(user)).toBe(RENT_EXEMPT);
    before = balance(user);
    await sendSolanaTransaction(sponsoredByDefault, {
      transfer: { toAddress: to, amount: 1 },
      sponsored: false,
    });
    expect(before - balance(user)).toBe(1n + FEE);
  });

  it("an expired blockhash is sponsored again with the fresh one", async () => {
    const to = fresh();
    const { rpc, calls } = staleBlockhashRpc(1);
    await sendSolanaTransaction(funded, {
      transfer: { toAddress: to, amount: RENT_EXEMPT },
      connection: rpc,
      policyId: DEV_POLICY,
    });
    expect(balance(to)).toBe(RENT_EXEMPT);
    // The service saw the stale blockhash first and refused it; only the second was sent.
    expect([calls("getLatestBlockhash"), calls("sendTransaction")]).toEqual([2, 1]);
  });

  it("a refusal carries the service's reason", async () => {
    const unknown = await errorOf(
      sendSolanaTransaction(funded, {
        transfer: { toAddress: fresh(), amount: RENT_EXEMPT },
        policyId: "nope",
      }),
    );
    expect(unknown).toBeInstanceOf(SolanaError);
    expect(unknown.code).toBe("SPONSORSHIP_REFUSED");
    expect((unknown as SolanaError).reason).toBe("POLICY_NOT_FOUND");
    expect(unknown.message).toMatch(/^Solana fee sponsorship was refused: POLICY_NOT_FOUND: /);

    // dev-solana moves at most 10 SOL per transaction.
    const tooMuch = await errorOf(
      sendSolanaTransaction(funded, {
        transfer: { toAddress: fresh(), amount: 11n * SOL },
        policyId: DEV_POLICY,
      }),
    );
    expect(tooMuch.code).toBe("SPONSORSHIP_REFUSED");
    expect((tooMuch as SolanaError).reason).toEqual(expect.any(String));
    expect(tooMuch.message).toContain((tooMuch as SolanaError).reason);
  });
});

type LatchkeyWallet = Wallet & {
  features: StandardConnectFeature &
    StandardDisconnectFeature &
    StandardEventsFeature &
    SolanaSignMessageFeature &
    SolanaSignTransactionFeature &
    SolanaSignAndSendTransactionFeature;
};

describe("registerSolanaWallet: a wallet-standard wallet", () => {
  const realWindow = (globalThis as { window?: unknown }).window;
  let walletUser: typeof funded;
  const chain = "solana:localnet" as const;

  beforeAll(async () => {
    // A page for the test's duration: wallet-standard speaks through window events.
    (globalThis as { window?: unknown }).window = new EventTarget();
    walletUser = await signInWithOtp(svc, "sol-wallet@example.com", {
      solana: solana({ rpcUrl: node.url, chain }),
    });
    node.svm.airdrop(address(solanaAddressOf(walletUser)), lamports(2n * SOL));
  });
  afterAll(() => {
    (globalThis as { window?: unknown }).window = realWindow;
  });

  /** Discovers wallets the way @wallet-standard/app does: the register-wallet event, then app-ready. */
  function discover() {
    const win = (globalThis as unknown as { window: EventTarget }).window;
    const wallets: LatchkeyWallet[] = [];
    let unregistered = 0;
    const api = {
      register(wallet: Wallet) {
        wallets.push(wallet as LatchkeyWallet);
        return () => {
          unregistered += 1;
        };
      },
    };
    const onRegister = (event: Event) => (event as CustomEvent).detail(api);
    win.addEventListener("wallet-standard:register-wallet", onRegister);
    return {
      wallets,
      unregistered: () => unregistered,
      appReady() {
        win.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: api }));
      },
      stop: () => win.removeEventListener("wallet-standard:register-wallet", onRegister),
    };
  }

  async function latestBlockhash() {
    return (await createSolanaRpc(node.url).getLatestBlockhash().send()).value;
  }

  it("is announced to apps already listening and to apps that start later; unregistering drops it", () => {
    const early = discover();
    const unregister = registerSolanaWallet(walletUser);
    const late = discover();
    late.appReady();
    expect(early.wallets).toHaveLength(1);
    expect(late.wallets).toHaveLength(1);
    const wallet = early.wallets[0] as LatchkeyWallet;
    expect(late.wallets[0]).toBe(wallet);
    expect(wallet.name).toBe("Latchkey");
    expect(wallet.version).toBe("1.0.0");
    expect(wallet.icon).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(wallet.chains).toEqual([chain]);
    expect(Object.keys(wallet.features).sort()).toEqual([
      "solana:signAndSendTransaction",
      "solana:signMessage",
      "solana:signTransaction",
      "standard:connect",
      "standard:disconnect",
      "standard:events",
    ]);
    expect(wallet.accounts).toEqual([]);
    unregister();
    expect([early.unregistered(), late.unregistered()]).toEqual([1, 1]);
    // Gone for apps that start after: nothing answers app-ready any more.
    const after = discover();
    after.appReady();
    expect(after.wallets).toEqual([]);
    for (const d of [early, late, after]) d.stop();
  });

  it("connects to the signed-in user's account; signs messages and transactions; signs and sends", async () => {
    const apps = discover();
    const unregister = registerSolanaWallet(walletUser);
    const wallet = apps.wallets[0] as LatchkeyWallet;
    try {
      const changes: StandardEventsChangeProperties[] = [];
      wallet.features["standard:events"].on("change", (p) => changes.push(p));
      const { accounts } = await wallet.features["standard:connect"].connect();
      const user = solanaAddressOf(walletUser);
      const [account] = accounts;
      if (!account) throw new Error("no account");
      expect(account.address).toBe(user);
      expect(Uint8Array.from(account.publicKey)).toEqual(
        Uint8Array.from(getAddressEncoder().encode(address(user))),
      );
      expect(account.chains).toEqual([chain]);
      expect([...account.features].sort()).toEqual([
        "solana:signAndSendTransaction",
        "solana:signMessage",
        "solana:signTransaction",
      ]);
      expect(wallet.accounts).toEqual([account]);
      expect(changes).toEqual([{ accounts: [account] }]);
      // Silent reconnect answers the same account.
      expect((await wallet.features["standard:connect"].connect({ silent: true })).accounts).toEqual([
        account,
      ]);

      // solana:signMessage: an ed25519 signature of the bytes as they are.
      const message = new TextEncoder().encode("Sign in to the dapp");
      const [signed] = await wallet.features["solana:signMessage"].signMessage({ account, message });
      expect(signed?.signedMessage).toEqual(message);
      expect(ed25519.verify(signed?.signature as Uint8Array, message, account.publicKey as Uint8Array)).toBe(
        true,
      );

      // solana:signTransaction: a v0 transaction (kit) and a legacy one (web3.js v1), wire bytes in and out.
      const to = fresh();
      const v0 = compileTransaction(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayer(address(user), m),
          (m) =>
            setTransactionMessageLifetimeUsingBlockhash(
              { blockhash: blockhash(fresh()), lastValidBlockHeight: 1n },
              m,
            ),
          (m) => appendTransactionMessageInstructions([systemTransfer(user, to, RENT_EXEMPT)], m),
        ),
      );
      const [signedV0] = await wallet.features["solana:signTransaction"].signTransaction({
        account,
        chain,
        transaction: Uint8Array.from(getTransactionEncoder().encode(v0)),
      });
      const decoded = getTransactionDecoder().decode(signedV0?.signedTransaction as Uint8Array);
      expect(Uint8Array.from(decoded.messageBytes)).toEqual(Uint8Array.from(v0.messageBytes));
      expect(
        ed25519.verify(
          decoded.signatures[address(user)] as Uint8Array,
          Uint8Array.from(decoded.messageBytes),
          account.publicKey as Uint8Array,
        ),
      ).toBe(true);

      const legacy = new Transaction({
        feePayer: new PublicKey(user),
        recentBlockhash: (await latestBlockhash()).blockhash,
      }).add(
        SystemProgram.transfer({ fromPubkey: new PublicKey(user), toPubkey: new PublicKey(to), lamports: 1 }),
      );
      const [signedLegacy] = await wallet.features["solana:signTransaction"].signTransaction({
        account,
        transaction: legacy.serialize({ requireAllSignatures: false }),
      });
      expect(Transaction.from(signedLegacy?.signedTransaction as Uint8Array).verifySignatures()).toBe(true);

      // solana:signAndSendTransaction: sent to the node and confirmed; answers the signature bytes.
      const before = balance(user);
      const latest = await latestBlockhash();
      const toSend = compileTransaction(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayer(address(user), m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
          (m) => appendTransactionMessageInstructions([systemTransfer(user, to, RENT_EXEMPT)], m),
        ),
      );
      const [sent] = await wallet.features["solana:signAndSendTransaction"].signAndSendTransaction({
        account,
        chain,
        transaction: Uint8Array.from(getTransactionEncoder().encode(toSend)),
        options: { commitment: "confirmed" },
      });
      expect(sent?.signature).toHaveLength(64);
      const [status] = (
        await createSolanaRpc(node.url)
          .getSignatureStatuses([getBase58Decoder().decode(sent?.signature as Uint8Array) as Signature])
          .send()
      ).value;
      expect(status?.err).toBeNull();
      expect(balance(to)).toBe(RENT_EXEMPT);
      expect(before - balance(user)).toBe(RENT_EXEMPT + FEE);

      // Another account, another chain: refused.
      const stranger = { ...account, address: fresh() };
      await expect(
        wallet.features["solana:signMessage"].signMessage({ account: stranger, message }),
      ).rejects.toMatchObject({ code: "SOLANA_ACCOUNT_MISMATCH" });
      await expect(
        wallet.features["solana:signAndSendTransaction"].signAndSendTransaction({
          account,
          chain: "solana:mainnet",
          transaction: Uint8Array.from(getTransactionEncoder().encode(toSend)),
        }),
      ).rejects.toMatchObject({ code: "SOLANA_CHAIN_UNSUPPORTED" });

      // standard:disconnect: no accounts, and a change says so.
      await wallet.features["standard:disconnect"].disconnect();
      expect(wallet.accounts).toEqual([]);
      expect(changes.at(-1)).toEqual({ accounts: [] });
    } finally {
      unregister();
      apps.stop();
    }
  });

  it("a signed-out signer: connect rejects (silent answers no account); signing out fires a change", async () => {
    const signedOut = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    const apps = discover();
    const unregisterOut = registerSolanaWallet(signedOut);
    const unregisterIn = registerSolanaWallet(walletUser);
    const [outWallet, inWallet] = apps.wallets as [LatchkeyWallet, LatchkeyWallet];
    try {
      await expect(
        outWallet.features["standard:connect"].connect(),
      ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: Signer not authenticated]`);
      expect(await outWallet.features["standard:connect"].connect({ silent: true })).toEqual({
        accounts: [],
      });

      await inWallet.features["standard:connect"].connect();
      const changes: StandardEventsChangeProperties[] = [];
      const off = inWallet.features["standard:events"].on("change", (p) => changes.push(p));
      await walletUser.disconnect();
      expect(changes).toEqual([{ accounts: [] }]);
      expect(inWallet.accounts).toEqual([]);
      off();
      await expect(inWallet.features["standard:connect"].connect()).rejects.toMatchObject({
        code: "NOT_AUTHENTICATED",
      });
    } finally {
      unregisterOut();
      unregisterIn();
      apps.stop();
    }
  });
});

describe("bundling", () => {
  it("an app that imports both but never sends ships no @solana/kit in its first chunk", async () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const result = await build({
      stdin: {
        contents: [
          `export { createSigner, sendSolanaTransaction } from "@latchkey/core";`,
          `export { registerSolanaWallet, solana } from "@latchkey/core/solana";`,
        ].join("\n"),
        resolveDir: root,
      },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      conditions: ["source"],
      outdir: "/virtual",
      write: false,
      metafile: true,
      logLevel: "silent",
      plugins: [
        {
          // Only ours, @solana/* and @wallet-standard/* are followed: the question is where kit lands.
          name: "external-others",
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              /^(@latchkey|@solana|@wallet-standard)\//.test(args.path) ? undefined : { external: true },
            );
          },
        },
      ],
    });
    const outputs = (result.metafile as Metafile).outputs;
    // The app's own entry (each lazily imported module is an entry point of its own chunk too).
    const entry = Object.keys(outputs).find((file) => outputs[file]?.entryPoint === "<stdin>");
    const initial = new Set<string>();
    const visit = (file: string) => {
      if (initial.has(file)) return;
      initial.add(file);
      for (const i of outputs[file]?.imports ?? [])
        if (i.kind === "import-statement" && !i.external) visit(i.path);
    };
    visit(entry as string);
    const inputsOf = (files: Iterable<string>) =>
      [...files].flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
    const first = inputsOf(initial);
    const all = inputsOf(Object.keys(outputs));
    const kit = (path: string) => /node_modules\/@solana\/(?!wallet-standard)/.test(path);
    expect(first.filter(kit)).toEqual([]);
    expect(first.some((path) => path.includes("@wallet-standard/wallet"))).toBe(true);
    // It is there, in the chunks loaded on the first send.
    expect(all.some((path) => path.includes("node_modules/@solana/transactions"))).toBe(true);
    expect(first.some((path) => path.endsWith("solana/wallet.ts"))).toBe(true);
    expect(first.some((path) => path.endsWith("solana/send.ts"))).toBe(false);
  });
});
