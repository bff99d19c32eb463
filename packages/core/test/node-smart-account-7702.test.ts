/**
 * 7702 accounts, the default smart account: the user's EOA delegates to Simple7702Account (EntryPoint
 * v0.8) with an authorization the service signs, carried by the first user operation; sponsored by the
 * service's paymaster. On a real chain (hardhat, osaka) with alto; every result is read on chain.
 */
import {
  createEip1193Provider,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  getSmartAccountClient,
  type Signer,
  type SignerOptions,
  sendUserOperation,
} from "@latchkey/core";
import { queryTypes, signerRoutes } from "@latchkey/protocol";
import {
  type Address,
  concat,
  createWalletClient,
  custom,
  encodeFunctionData,
  getAddress,
  type Hex,
  toFunctionSelector,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChainStack,
  counterAbi,
  SIMPLE_7702_ACCOUNT_08,
  smartAccountChainOf,
} from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { devMailbox, startTestService, type TestService } from "../../../test-support/service";

const API_KEY = "lk_seven_key_0123456789abcdef0";
const POLICY = "pol_7702";

let chain: ChainStack;
let svc: TestService;

const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
const add = (n: bigint) => encodeFunctionData({ abi: counterAbi, functionName: "add", args: [n] });
const counterValue = () =>
  chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });
const codeOf = (address: Address) => chain.publicClient.getCode({ address });
const delegation = concat(["0xef0100", SIMPLE_7702_ACCOUNT_08]).toLowerCase();

beforeAll(async () => {
  chain = await sharedChainStack();
  svc = await startTestService({
    dev: true,
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster }],
    apps: [
      {
        id: "seven-app",
        name: "Seven App",
        apiKeys: [API_KEY],
        allowedOrigins: ["http://seven.test"],
        sponsorship: {
          policies: [
            {
              id: POLICY,
              chainId: chain.chainId,
              allowedTargets: [
                {
                  address: chain.counter,
                  selectors: [toFunctionSelector("increment()"), toFunctionSelector("add(uint256)")],
                },
              ],
              limits: { operationsPerUserPerDay: 20 },
            },
          ],
        },
      },
    ],
    logLevel: "silent",
  });
  await chain.addPaymasterSigner(await svc.service.paymasterSignerAddress());
}, 120_000);
afterAll(async () => {
  await Promise.all([chain?.stop(), svc?.close()]);
});

async function signIn(email: string, options: Partial<SignerOptions> = {}): Promise<Signer> {
  const signer = createSigner({
    baseUrl: svc.url,
    apiKey: API_KEY,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    chains: [smartAccountChainOf(chain, { policyId: POLICY })],
    ...options,
  });
  const mailbox = devMailbox(svc.service);
  const sent = mailbox.count(email);
  await signer.authenticate({ type: "email", email, emailMode: "otp" });
  await signer.authenticate({ type: "otp", otpCode: await mailbox.otpCode(email, sent) });
  return signer;
}

const eoaOf = (signer: Signer) => getAddress(signer.getState().user?.address as Hex);

describe("7702 accounts (the default)", () => {
  let signer: Signer;

  it("a 0-ETH user's first sponsored operation delegates the EOA to Simple7702Account and moves the counter", async () => {
    signer = await signIn("seven@example.com");
    const eoa = eoaOf(signer);
    const client = await getSmartAccountClient(signer);
    expect(client.account.address).toBe(eoa); // the account is the user's own address
    expect(client.smartAccountKind).toBe("7702");
    expect(await codeOf(eoa)).toBeUndefined();
    expect(await chain.publicClient.getBalance({ address: eoa })).toBe(0n);
    const before = await counterValue();

    const sent = await sendUserOperation(signer, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    expect(sent.request.sender).toBe(eoa);
    expect(sent.request.authorization?.address).toBe(SIMPLE_7702_ACCOUNT_08);
    expect(sent.request.factory).toBeUndefined();
    expect(sent.request.paymaster).toBe(chain.paymaster);
    expect((await chain.publicClient.getTransactionReceipt({ hash: sent.hash })).status).toBe("success");
    expect((await codeOf(eoa))?.toLowerCase()).toBe(delegation);
    expect(await counterValue()).toBe(before + 1n);
    expect(await chain.publicClient.getBalance({ address: eoa })).toBe(0n);
  });

  it("a batch, as the second operation, carries no authorization and lands atomically", async () => {
    const before = await counterValue();
    const sent = await sendUserOperation(signer, {
      uo: [
        { target: chain.counter, data: increment },
        { target: chain.counter, data: add(5n) },
      ],
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    expect(sent.request.authorization).toBeUndefined();
    expect(await counterValue()).toBe(before + 6n);
    expect(await chain.publicClient.getBalance({ address: eoaOf(signer) })).toBe(0n);
  });

  it("a new signer (another page) sends without authorization: the EOA already delegates", async () => {
    const again = await signIn("seven@example.com");
    const before = await counterValue();
    const sent = await sendUserOperation(again, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    expect(sent.request.authorization).toBeUndefined();
    expect(await counterValue()).toBe(before + 1n);
  });

  it("the EIP-1193 provider answers the EOA in eth_accounts, and wallet_sendCalls is sponsored", async () => {
    const user = await signIn("seven-provider@example.com");
    const provider = createEip1193Provider(user);
    const eoa = eoaOf(user);
    expect(await provider.request({ method: "eth_accounts" })).toEqual([eoa]);
    const wallet = createWalletClient({ account: eoa, chain: chain.chain, transport: custom(provider) });
    const before = await counterValue();
    const { id } = await wallet.sendCalls({
      calls: [
        { to: chain.counter, data: increment },
        { to: chain.counter, data: add(2n) },
      ],
    });
    const status = await wallet.waitForCallsStatus({ id, pollingInterval: 100 });
    expect(status.statusCode).toBe(200);
    expect(await counterValue()).toBe(before + 3n);
    expect((await codeOf(eoa))?.toLowerCase()).toBe(delegation);
    expect(await chain.publicClient.getBalance({ address: eoa })).toBe(0n);
  });
});

describe("the 4337 option, and the recorded kind", () => {
  it("`smartAccount: { kind: '4337' }` gives a LatchkeySimpleAccount, deployed by its first sponsored operation", async () => {
    const user = await signIn("four@example.com", { smartAccount: { kind: "4337" } });
    const eoa = eoaOf(user);
    const client = await getSmartAccountClient(user);
    const account = client.account.address;
    expect(account).not.toBe(eoa);
    expect(client.smartAccountKind).toBe("4337");
    const before = await counterValue();
    const sent = await sendUserOperation(user, {
      uo: { target: chain.counter, data: increment },
      waitForTxn: true,
    });
    if (sent.kind !== "userOperation") throw new Error("expected a user operation");
    expect(sent.request.factory).toBe(chain.latchkeyAccountFactory);
    expect(sent.request.authorization).toBeUndefined();
    expect(await counterValue()).toBe(before + 1n);
    expect(await codeOf(account)).toMatch(/^0x.{100,}/);
    expect(await codeOf(eoa)).toBeUndefined(); // the EOA is not delegated
  });

  it("an existing 4337 user stays 4337 when the app's default is 7702; a 7702 user stays 7702 when it is 4337", async () => {
    const first = await signIn("four-kept@example.com", { smartAccount: { kind: "4337" } });
    const simpleAccount = (await getSmartAccountClient(first)).account.address;
    expect(simpleAccount).not.toBe(eoaOf(first));

    // The app now defaults to 7702 (the option left out): the user keeps their SimpleAccount.
    const later = await signIn("four-kept@example.com");
    expect((await getSmartAccountClient(later)).account.address).toBe(simpleAccount);
    const provider = createEip1193Provider(later);
    expect(await provider.request({ method: "eth_accounts" })).toEqual([simpleAccount]);
    const before = await counterValue();
    await sendUserOperation(later, { uo: { target: chain.counter, data: increment }, waitForTxn: true });
    expect(await counterValue()).toBe(before + 1n);
    expect(await codeOf(eoaOf(later))).toBeUndefined();
    // What the service records: a whoami proposing 7702 still answers 4337.
    const stampedRequest = await later.client.stampRequest("/public/v1/query/whoami", {
      type: queryTypes.whoami,
      organizationId: later.getState().user?.orgId,
      smartAccountKind: "7702",
    });
    const who = await later.client.call(signerRoutes.whoami, { stampedRequest });
    expect(who.smartAccountKind).toBe("4337");

    // And the other way: the 7702 user of the first test stays on their EOA under a 4337 default.
    const seven = await signIn("seven@example.com", { smartAccount: { kind: "4337" } });
    expect((await getSmartAccountClient(seven)).account.address).toBe(eoaOf(seven));
  });
});
