/**
 * The 4337 option's signatures verify for the smart account's address: a new 4337 user gets a
 * LatchkeySimpleAccount (SimpleAccount v0.8 with ERC-1271), whose `personal_sign` and
 * `eth_signTypedData_v4` viem's verifyMessage / verifyTypedData accept for `eth_accounts[0]` — through
 * ERC-6492 while the account is undeployed, ERC-1271 once its first (sponsored) operation deployed it.
 * A user recorded with the older SimpleAccount keeps its address. One real chain (hardhat + alto) for the
 * file; the service on SQLite and on PostgreSQL.
 */
import {
  createEip1193Provider,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  getSmartAccountClient,
  type LatchkeyEip1193Provider,
  type Signer,
  sendUserOperation,
} from "@latchkey/core";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  isErc6492Signature,
  parseAbi,
  toFunctionSelector,
  toHex,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChainStack,
  counterAbi,
  LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08,
  smartAccountChainOf,
} from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";
import { freshDatabase } from "../../server/test/helpers";

const API_KEY = "lk_four_key_0123456789abcdef01";
const POLICY = "pol_4337";

let chain: ChainStack;
beforeAll(async () => {
  chain = await sharedChainStack();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
const typedData = (contents: string) =>
  ({
    domain: {
      name: "Demo",
      version: "1",
      chainId: 31337,
      verifyingContract: LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08,
    },
    types: {
      Mail: [
        { name: "to", type: "address" },
        { name: "contents", type: "string" },
      ],
    },
    primaryType: "Mail",
    message: { to: "0x000000000000000000000000000000000000dEaD", contents },
  }) as const;
const isValidSignatureAbi = parseAbi([
  "function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)",
]);

// On SQLite: the service stores nothing here that differs on PostgreSQL (packages/server/test/helpers.ts,
// SCENARIO_DATABASES).
describe.each(["sqlite"] as const)("4337 accounts' signatures (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await startTestService({
      db: database.url,
      dev: true,
      chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster }],
      apps: [
        {
          id: "four-app",
          name: "Four App",
          apiKeys: [API_KEY],
          allowedOrigins: ["http://four.test"],
          sponsorship: {
            policies: [
              {
                id: POLICY,
                chainId: chain.chainId,
                allowedTargets: [{ address: chain.counter, selectors: [toFunctionSelector("increment()")] }],
              },
            ],
          },
        },
      ],
      logLevel: "silent",
    });
    await chain.addPaymasterSigner(await svc.service.paymasterSignerAddress());
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  async function signIn(email: string): Promise<Signer> {
    const signer = createSigner({
      baseUrl: svc.url,
      apiKey: API_KEY,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      chains: [smartAccountChainOf(chain, { policyId: POLICY })],
      smartAccount: { kind: "4337" },
    });
    const mailbox = devMailbox(svc.service);
    const sent = mailbox.count(email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    await signer.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });
    return signer;
  }

  let signer: Signer;
  let provider: LatchkeyEip1193Provider;
  let account: Address;
  let owner: Address;

  /** Signs `message` and typed data through the provider for `address` (eth_accounts[0] by default). */
  async function signBoth(message: string, contents: string, address: Address = account) {
    const signature = (await provider.request({
      method: "personal_sign",
      params: [toHex(message), address],
    })) as Hex;
    const typedSignature = (await provider.request({
      method: "eth_signTypedData_v4",
      params: [address, JSON.stringify(typedData(contents))],
    })) as Hex;
    return { signature, typedSignature };
  }

  const verifyBoth = async (
    address: Address,
    message: string,
    contents: string,
    sigs: { signature: Hex; typedSignature: Hex },
  ) => [
    await chain.publicClient.verifyMessage({ address, message, signature: sigs.signature }),
    await chain.publicClient.verifyTypedData({
      address,
      ...typedData(contents),
      signature: sigs.typedSignature,
    }),
  ];

  it("a new 4337 user gets a LatchkeySimpleAccount: undeployed, its signatures verify for eth_accounts[0] (ERC-6492)", async () => {
    signer = await signIn(`four-${kind}@example.com`);
    provider = createEip1193Provider(signer);
    owner = getAddress(signer.getState().user?.address as Hex);
    const [first] = (await provider.request({ method: "eth_accounts" })) as Address[];
    account = first as Address;
    const client = await getSmartAccountClient(signer);
    expect(client.smartAccountKind).toBe("4337");
    expect(client.smartAccountContract).toBe("LatchkeySimpleAccount");
    expect(account).toBe(client.account.address);
    expect(account).not.toBe(owner);
    expect(await chain.publicClient.getCode({ address: account })).toBeUndefined();
    // The account is the LatchkeySimpleAccountFactory's for the owner.
    expect(
      await chain.publicClient.readContract({
        address: chain.latchkeyAccountFactory,
        abi: parseAbi(["function getAddress(address owner, uint256 salt) view returns (address)"]),
        functionName: "getAddress",
        args: [owner, 0n],
      }),
    ).toBe(account);

    const sigs = await signBoth("Sign in to the demo", "hello");
    expect(isErc6492Signature(sigs.signature)).toBe(true);
    expect(isErc6492Signature(sigs.typedSignature)).toBe(true);
    expect(await verifyBoth(account, "Sign in to the demo", "hello", sigs)).toEqual([true, true]);
    // Another message, another account, another typed message: refused.
    expect(await verifyBoth(account, "Sign in to another demo", "bye", sigs)).toEqual([false, false]);
    expect(await verifyBoth(owner, "Sign in to the demo", "hello", sigs)).toEqual([false, false]);
    // Verifying deployed nothing (ERC-6492 simulates the deployment).
    expect(await chain.publicClient.getCode({ address: account })).toBeUndefined();

    // The Signer's smart account signs the same way.
    const direct = await client.account.signMessage({ message: "direct" });
    expect(
      await chain.publicClient.verifyMessage({ address: account, message: "direct", signature: direct }),
    ).toBe(true);
    // The owner signs only a hash, yet the service read the message through it (issue 46): the security
    // log names the message and the account, as a confirmation step would show them.
    const completed = await svc.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("event", "=", "signing.completed")
      .execute();
    const summary = JSON.parse(completed.at(-1)?.details ?? "{}").summary as string[];
    expect(summary).toContain("direct");
    expect(summary).toContain(`Signed as your smart account ${account.slice(0, 6)}…${account.slice(-4)}`);
  });

  it("after its first sponsored operation deployed it, both verify through ERC-1271; another's do not", async () => {
    const sent = await sendUserOperation(signer, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    expect(sent.request.factory).toBe(LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08);
    expect(sent.request.paymaster).toBe(chain.paymaster);
    expect((await chain.publicClient.getTransactionReceipt({ hash: sent.hash })).status).toBe("success");
    expect(await chain.publicClient.getCode({ address: account })).toMatch(/^0x.+/);
    expect(await chain.publicClient.getBalance({ address: account })).toBe(0n);

    const sigs = await signBoth("Sign in again", "deployed");
    expect(isErc6492Signature(sigs.signature)).toBe(false);
    expect(isErc6492Signature(sigs.typedSignature)).toBe(false);
    expect(await verifyBoth(account, "Sign in again", "deployed", sigs)).toEqual([true, true]);
    expect(await verifyBoth(account, "Sign in once more", "other", sigs)).toEqual([false, false]);
    // The account's own isValidSignature answers the magic value, and refuses the owner's plain signature.
    const { hashMessage } = await import("viem");
    const hash = hashMessage("Sign in again");
    const isValid = (signature: Hex) =>
      chain.publicClient.readContract({
        address: account,
        abi: isValidSignatureAbi,
        functionName: "isValidSignature",
        args: [hash, signature],
      });
    expect(await isValid(sigs.signature)).toBe("0x1626ba7e");
    const plain = (await provider.request({
      method: "personal_sign",
      params: [toHex("Sign in again"), owner],
    })) as Hex;
    expect(await isValid(plain)).toBe("0xffffffff");

    // Another user's account does not take this user's signatures (the replay-safe hash names the account).
    const other = await signIn(`four-other-${kind}@example.com`);
    const otherAccount = (await getSmartAccountClient(other)).account.address;
    expect(otherAccount).not.toBe(account);
    expect(await verifyBoth(otherAccount, "Sign in again", "deployed", sigs)).toEqual([false, false]);
    // …nor can this provider sign for it (4100).
    await expect(
      provider.request({ method: "personal_sign", params: [toHex("x"), otherAccount] }),
    ).rejects.toMatchObject({ code: 4100 });
  });

  it("a user recorded with the older SimpleAccount keeps its address (its signatures stay the owner's)", async () => {
    const legacy = await signIn(`four-legacy-${kind}@example.com`);
    const userId = legacy.getState().user?.userId as string;
    // As migration 0019 recorded every user from before: "4337", a SimpleAccount.
    await svc.service.ctx.db
      .updateTable("users")
      .set({ smart_account_kind: "4337" })
      .where("id", "=", userId)
      .execute();
    const again = await signIn(`four-legacy-${kind}@example.com`);
    const client = await getSmartAccountClient(again);
    expect(client.smartAccountContract).toBe("SimpleAccount");
    const legacyOwner = getAddress(again.getState().user?.address as Hex);
    // The SimpleAccountFactory's account for the owner, as before LatchkeySimpleAccount.
    const simpleAccount = await chain.publicClient.readContract({
      address: chain.accountFactory,
      abi: parseAbi(["function getAddress(address owner, uint256 salt) view returns (address)"]),
      functionName: "getAddress",
      args: [legacyOwner, 0n],
    });
    expect(client.account.address).toBe(simpleAccount);
    expect((await createEip1193Provider(again).request({ method: "eth_accounts" }))[0]).toBe(simpleAccount);
    // Its owner signs (SimpleAccount has no ERC-1271): not verifiable for the account.
    const signature = (await createEip1193Provider(again).request({
      method: "personal_sign",
      params: [toHex("legacy"), simpleAccount],
    })) as Hex;
    expect(
      await chain.publicClient.verifyMessage({ address: legacyOwner, message: "legacy", signature }),
    ).toBe(true);
  });
});
