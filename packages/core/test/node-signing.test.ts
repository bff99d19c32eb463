import {
  type KitTransactionLike,
  type Signer,
  signRawMessage,
  toSolanaSigner,
  toViemAccount,
} from "@latchkey/core";
import { fromHex } from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import {
  keccak256,
  type LocalAccount,
  parseEther,
  parseGwei,
  recoverAddress,
  recoverTransactionAddress,
  toHex,
  verifyMessage,
  verifyTypedData,
} from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

let svc: TestService;
let signer: Signer;
let account: LocalAccount;

beforeAll(async () => {
  svc = await startService();
  signer = await signInWithOtp(svc, "signer@example.com");
  account = toViemAccount(signer);
});
afterAll(async () => {
  await svc?.close();
});

const recipient = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** Simple7702Account v0.8: the EIP-7702 delegate a signing policy allows unless it says otherwise. */
const SIMPLE_7702 = "0xe6Cae83BdE06E4c305530e199D7217f42808555B";

describe("viem account", () => {
  it("is a LocalAccount of the user's address", () => {
    expect(account.type).toBe("local");
    expect(account.address).toBe(signer.user?.address);
  });

  it("signs an EIP-191 message", async () => {
    for (const message of ["hello latchkey", { raw: "0xdeadbeef" as const }]) {
      const signature = await account.signMessage({ message });
      expect(await verifyMessage({ address: account.address, message, signature })).toBe(true);
    }
  });

  it("signs EIP-712 typed data", async () => {
    const typedData = {
      domain: { name: "Latchkey", version: "1", chainId: 1, verifyingContract: recipient },
      types: {
        Person: [
          { name: "name", type: "string" },
          { name: "wallet", type: "address" },
        ],
        Mail: [
          { name: "from", type: "Person" },
          { name: "contents", type: "string" },
        ],
      },
      primaryType: "Mail",
      message: { from: { name: "Ada", wallet: recipient }, contents: "Hi" },
    } as const;
    const signature = await account.signTypedData(typedData);
    expect(await verifyTypedData({ ...typedData, address: account.address, signature })).toBe(true);
  });

  it("signs legacy, EIP-1559 and EIP-7702 transactions", async () => {
    const legacy = await account.signTransaction({
      type: "legacy",
      chainId: 31337,
      nonce: 0,
      to: recipient,
      value: parseEther("0.01"),
      gas: 21000n,
      gasPrice: parseGwei("2"),
    });
    expect(legacy.startsWith("0xf8")).toBe(true);
    expect(await recoverTransactionAddress({ serializedTransaction: legacy as never })).toBe(account.address);

    const eip1559 = await account.signTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 7,
      to: recipient,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
      data: "0x1234",
    });
    expect(eip1559.startsWith("0x02")).toBe(true);
    expect(await recoverTransactionAddress({ serializedTransaction: eip1559 as never })).toBe(
      account.address,
    );

    const authorization = await account.signAuthorization?.({
      contractAddress: SIMPLE_7702,
      chainId: 1,
      nonce: 8,
    });
    if (!authorization) throw new Error("signAuthorization missing");
    const eip7702 = await account.signTransaction({
      type: "eip7702",
      chainId: 1,
      nonce: 7,
      to: account.address,
      gas: 100000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
      authorizationList: [authorization],
    });
    expect(eip7702.startsWith("0x04")).toBe(true);
    expect(await recoverTransactionAddress({ serializedTransaction: eip7702 as never })).toBe(
      account.address,
    );
  });

  it("signs an EIP-7702 authorization", async () => {
    const authorization = await account.signAuthorization?.({
      contractAddress: SIMPLE_7702,
      chainId: 10,
      nonce: 3,
    });
    expect(authorization).toMatchObject({
      address: SIMPLE_7702,
      chainId: 10,
      nonce: 3,
      yParity: expect.any(Number),
    });
    if (!authorization) throw new Error("signAuthorization missing");
    expect(await recoverAuthorizationAddress({ authorization })).toBe(account.address);
  });
});

describe("signRawMessage", () => {
  it("signs a 32-byte digest as is; v is 27 or 28", async () => {
    const hash = keccak256(toHex("raw digest"));
    const signature = await signRawMessage(signer, { message: hash });
    expect(signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
    expect(await recoverAddress({ hash, signature })).toBe(account.address);
  });
});

describe("Solana signer", () => {
  const solana = () => toSolanaSigner(signer);
  const publicKey = () => new Uint8Array(getAddressEncoder().encode(address(solana().address)));

  it("signs a message with the user's ed25519 key (64 bytes)", async () => {
    const message = new TextEncoder().encode("hello solana");
    const signature = await solana().signMessage(message);
    expect(signature.length).toBe(64);
    expect(ed25519.verify(signature, message, publicKey())).toBe(true);
    expect(solana().address).toBe(signer.user?.solanaAddress);
  });

  it("signs a @solana/kit transaction", async () => {
    const payer = address(solana().address);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash(Keypair.generate().publicKey.toBase58()), lastValidBlockHeight: 100n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: address("11111111111111111111111111111111"),
            accounts: [
              { address: payer, role: AccountRole.WRITABLE_SIGNER },
              { address: address(Keypair.generate().publicKey.toBase58()), role: AccountRole.WRITABLE },
            ],
            data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
          },
          m,
        ),
    );
    const transaction: KitTransactionLike = compileTransaction(message);
    const signed = await solana().signTransaction(transaction);
    const signature = signed.signatures[payer];
    expect(signature).toBeInstanceOf(Uint8Array);
    expect(
      ed25519.verify(
        signature as Uint8Array,
        Uint8Array.from(transaction.messageBytes as ArrayLike<number>),
        publicKey(),
      ),
    ).toBe(true);
    const [dictionary] = await solana().signTransactions([transaction]);
    expect(dictionary?.[payer]).toEqual(signature);
  });

  it("signs @solana/web3.js v1 legacy and versioned transactions", async () => {
    const payer = new PublicKey(solana().address);
    const instruction = SystemProgram.transfer({
      fromPubkey: payer,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    });
    const recentBlockhash = Keypair.generate().publicKey.toBase58();

    const legacy = new Transaction({ feePayer: payer, recentBlockhash }).add(instruction);
    await solana().signTransaction(legacy);
    expect(legacy.verifySignatures()).toBe(true);

    const versioned = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer,
        recentBlockhash,
        instructions: [instruction],
      }).compileToV0Message(),
    );
    await solana().signTransaction(versioned);
    expect(
      ed25519.verify(versioned.signatures[0] as Uint8Array, versioned.message.serialize(), payer.toBytes()),
    ).toBe(true);
  });

  it("refuses with 'no solana address' when the user has none", async () => {
    const stored = signer.sessionManager.getSession();
    if (!stored) throw new Error("no session");
    const { solanaAddress: _, ...withoutSolana } = stored.user;
    const { createSigner } = await import("@latchkey/core");
    const restored = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: signer.keyHolder,
      storage: signer.sessionManager.storage,
      window: null,
      sessionKey: "no-solana",
    });
    restored.sessionManager.setSession({ ...stored, user: withoutSolana });
    await restored.init();
    expect(restored.user?.address).toBe(signer.user?.address);
    expect(() => toSolanaSigner(restored)).toThrowErrorMatchingInlineSnapshot(
      `[SignerError: no solana address]`,
    );
    await expect(
      signRawMessage(restored, { message: fromHex("00"), mode: "SOLANA" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: no solana address]`);
  });
});

describe("key-management API through the SignerClient", () => {
  it("queries and submits stamped requests, polling the activity to COMPLETED", async () => {
    const user = signer.user;
    if (!user) throw new Error("not connected");
    const who = await signer.client.query("whoami", { organizationId: user.orgId });
    expect(who).toMatchObject({ organizationId: user.orgId, userId: user.userId });
    const digest = keccak256(toHex("via public api"));
    const activity = await signer.client.submit("sign_raw_payload", {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      organizationId: user.orgId,
      parameters: {
        signWith: user.address,
        payload: digest,
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { r, s, v } = (activity.result as { signRawPayloadResult: { r: string; s: string; v: string } })
      .signRawPayloadResult;
    const signature = `0x${r}${s}${(27 + Number.parseInt(v, 16)).toString(16)}` as const;
    expect(await recoverAddress({ hash: digest, signature })).toBe(user.address);
  });
});
