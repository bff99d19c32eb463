import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  getSmartAccountClient,
  type Signer,
} from "@latchkey/core";
import { latchkey } from "@latchkey/core/wagmi";
import {
  type Config,
  connect,
  createConfig,
  custom,
  disconnect,
  getAccount,
  getCallsStatus,
  getCapabilities,
  getConnectorClient,
  http,
  reconnect,
  sendCalls,
  sendTransaction,
  signMessage,
  signTypedData,
  switchChain,
  waitForCallsStatus,
  waitForTransactionReceipt,
} from "@wagmi/core";
import {
  type Address,
  encodeFunctionData,
  parseEther,
  recoverMessageAddress,
  recoverTypedDataAddress,
} from "viem";
import { mainnet } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainStack, counterAbi, smartAccountChainOf } from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// One chain (hardhat + EntryPoint v0.8 + SimpleAccountFactory + alto) and one service for the file.
let chain: ChainStack;
let svc: TestService;
let signer: Signer;
let account: Address; // the smart account
let owner: Address; // the embedded EOA
const email = "wagmi@example.com";

const increment = encodeFunctionData({ abi: counterAbi, functionName: "increment" });
const counterValue = () =>
  chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });

const configFor = (s: Signer, options: { requestAccounts?: () => Promise<void> } = {}) =>
  createConfig({
    chains: [chain.chain, mainnet],
    connectors: [latchkey({ signer: s, ...options })],
    transports: { [chain.chainId]: http(chain.rpcUrl), [mainnet.id]: http("http://127.0.0.1:9") },
    storage: null,
  });

/** Whether `code` is the code of the error or of one of its causes. */
function hasCode(error: unknown, code: number): boolean {
  for (let e = error; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}

async function signIn(s: Signer, address: string) {
  const sent = mailCount(svc, address);
  await s.authenticate({ type: "email", email: address, emailMode: "otp" });
  await s.authenticate({ type: "otp", otpCode: await svc.otpCode(address, sent) });
}

beforeAll(async () => {
  [chain, svc] = await Promise.all([sharedChainStack(), startService()]);
  const chains = [smartAccountChainOf(chain)];
  signer = await signInWithOtp(svc, email, { chains });
  account = (await getSmartAccountClient(signer)).account.address;
  owner = signer.getState().user?.address as Address;
  await chain.fund(account, parseEther("1"));
});
afterAll(async () => {
  await Promise.all([chain?.stop(), svc?.close()]);
});

describe("the latchkey() wagmi connector", () => {
  let config: Config;

  it("is listed with its id, name, type and rdns, and connects to the smart account", async () => {
    config = configFor(signer);
    const [connector] = config.connectors;
    expect(connector).toMatchObject({
      id: "latchkey",
      name: "Latchkey",
      type: "latchkey",
      rdns: "dev.latchkey",
    });
    expect(connector?.icon).toMatch(/^data:image\/svg\+xml,/);
    expect(await connector?.isAuthorized()).toBe(true);

    const result = await connect(config, { connector: connector! });
    expect(result).toEqual({ accounts: [account], chainId: chain.chainId });
    expect(getAccount(config)).toMatchObject({
      address: account,
      addresses: [account],
      chainId: chain.chainId,
      status: "connected",
      isConnected: true,
    });
    expect(getAccount(config).connector?.id).toBe("latchkey");
  });

  it("sendCalls sends a batch as one user operation; the counter goes up by 2", async () => {
    const before = await counterValue();
    const { id } = await sendCalls(config, {
      calls: [
        { to: chain.counter, data: increment },
        { to: chain.counter, abi: counterAbi, functionName: "add", args: [1n] },
      ],
    });
    const status = await waitForCallsStatus(config, { id, pollingInterval: 100 });
    expect(status).toMatchObject({ status: "success", statusCode: 200, atomic: true });
    expect(status.receipts).toHaveLength(1);
    expect(await counterValue()).toBe(before + 2n);
    expect(await getCallsStatus(config, { id })).toMatchObject({ status: "success", chainId: chain.chainId });
  });

  it("sendTransaction sends a user operation and answers its transaction's hash", async () => {
    const before = await counterValue();
    const hash = await sendTransaction(config, { to: chain.counter, data: increment });
    const receipt = await waitForTransactionReceipt(config, { hash, pollingInterval: 100 });
    expect(receipt.status).toBe("success");
    expect(await counterValue()).toBe(before + 1n);
  });

  it("signMessage and signTypedData are signed by the smart account's owner", async () => {
    const signature = await signMessage(config, { message: "hello from wagmi" });
    expect(await recoverMessageAddress({ message: "hello from wagmi", signature })).toBe(owner);
    const typedData = {
      domain: { name: "Demo", version: "1", chainId: chain.chainId },
      types: { Greeting: [{ name: "text", type: "string" }] },
      primaryType: "Greeting",
      message: { text: "hi" },
    } as const;
    const typedSignature = await signTypedData(config, typedData);
    expect(await recoverTypedDataAddress({ ...typedData, signature: typedSignature })).toBe(owner);
  });

  it("getCapabilities reports atomic batches and paymaster services", async () => {
    expect(await getCapabilities(config)).toEqual({
      [chain.chainId]: { atomic: { status: "supported" }, paymasterService: { supported: true } },
    });
  });

  it("switching to a chain the signer does not configure fails (4902) and wagmi stays on its chain", async () => {
    const error = await switchChain(config, { chainId: mainnet.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("SwitchChainError");
    expect(hasCode(error, 4902)).toBe(true);
    expect(getAccount(config).chainId).toBe(chain.chainId);
  });

  it("a sign-out disconnects wagmi; a sign-in elsewhere (the modal) connects it again", async () => {
    await signer.disconnect();
    await expect.poll(() => getAccount(config).status).toBe("disconnected");
    await signIn(signer, email);
    await expect.poll(() => getAccount(config).status).toBe("connected");
    expect(getAccount(config).address).toBe(account);
    const client = await getConnectorClient(config);
    expect(client.account.address).toBe(account);
  });

  it("wagmi's disconnect detaches wagmi only; reconnect() picks the session up in a new config", async () => {
    await disconnect(config);
    expect(getAccount(config).status).toBe("disconnected");
    expect(signer.getState().user?.address).toBe(owner); // still signed in to Latchkey

    const fresh = configFor(signer);
    const [connection] = await reconnect(fresh);
    expect(connection).toMatchObject({ accounts: [account], chainId: chain.chainId });
    expect(getAccount(fresh)).toMatchObject({ status: "connected", address: account });
  });

  it("connect while signed out awaits requestAccounts (the sign-in modal)", async () => {
    const other = await signInWithOtp(svc, "wagmi-modal@example.com", {
      chains: [{ chain: chain.chain, rpcUrl: chain.rpcUrl, bundlerUrl: chain.bundlerUrl }],
    });
    const otherAccount = (await getSmartAccountClient(other)).account.address;
    await other.disconnect();
    const refused = configFor(other);
    const error = await connect(refused, { connector: refused.connectors[0]! }).catch((e: unknown) => e);
    expect(hasCode(error, 4100)).toBe(true);

    const modal = configFor(other, { requestAccounts: () => signIn(other, "wagmi-modal@example.com") });
    const result = await connect(modal, { connector: modal.connectors[0]! });
    expect(result.accounts).toEqual([otherAccount]);
    expect(getAccount(modal).status).toBe("connected");
  });
});

describe("the latchkey() connector without a bundler (the plain wallet)", () => {
  it("connects the EOA on wagmi's chain, signs, and sends a plain transaction through the service", async () => {
    const plain = await signInWithOtp(svc, "wagmi-plain@example.com");
    const eoa = plain.getState().user?.address as Address;
    const config = createConfig({
      chains: [chain.chain],
      connectors: [latchkey({ signer: plain })],
      transports: { [chain.chainId]: http(chain.rpcUrl) },
      storage: null,
    });
    const connected = await connect(config, { connector: config.connectors[0]! });
    expect(connected.accounts).toEqual([eoa]);
    expect(connected.chainId).toBe(chain.chainId);
    const signature = await signMessage(config, { message: "plain" });
    expect(await recoverMessageAddress({ message: "plain", signature })).toBe(eoa);
    const capabilities = await getCapabilities(config);
    expect(capabilities[chain.chainId]).toMatchObject({ atomic: { status: "unsupported" } });
    // No bundler, no atomic batch: wallet_sendCalls says which setting is missing.
    const batch = await sendCalls(config, { calls: [{ to: chain.counter, data: increment }] }).catch(
      (e: Error) => e,
    );
    expect(batch).toBeInstanceOf(Error);
    expect(hasCode(batch, 4200)).toBe(true);
    expect(String((batch as Error).message)).toContain("bundlerUrl");

    await chain.fund(eoa, parseEther("1"));
    const before = await counterValue();
    const hash = await sendTransaction(config, { to: chain.counter, data: increment });
    const receipt = await waitForTransactionReceipt(config, { hash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(eoa.toLowerCase());
    expect(await counterValue()).toBe(before + 1n);
  });

  it("a chain without an RPC URL fails when the config is made, naming rpcUrl", () => {
    const plain = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    const noRpc = { ...chain.chain, rpcUrls: { default: { http: [] as string[] } } };
    expect(() =>
      createConfig({
        chains: [noRpc],
        connectors: [latchkey({ signer: plain })],
        transports: { [noRpc.id]: custom({ request: async () => null }) },
        storage: null,
      }),
    ).toThrow(/rpcUrl/);
  });
});
