import { randomUUID } from "node:crypto";
import type { WalletKitTypes } from "@reown/walletkit";
import { type Address, type LocalAccount, numberToHex } from "viem";
import {
  createBehaviour,
  ProviderError,
  type ProviderErrorShape,
  toProviderError,
  type WalletBehaviour,
} from "./behaviour.js";
import { accountActions, parseChainId, type WalletChain } from "./evm.js";
import { walletKitModules } from "./walletConnectModules.js";

// CommonJS builds: their ESM builds do not run under vitest (walletConnectModules.ts)
const { WalletKit: WalletKitClass, Core, utils } = walletKitModules();
const { buildApprovedNamespaces, getSdkError } = utils;

type Proposal = WalletKitTypes.SessionProposal["params"];
type Session = ReturnType<InstanceType<typeof WalletKitClass>["getActiveSessions"]>[string];

export interface WalletConnectWalletOptions {
  /** The local relay's URL (`startWalletConnectRelay().url`). */
  relayUrl: string;
  /** The key: signs in the test process. */
  account: LocalAccount;
  /** The chains it offers (eip155:<id>), with the node it sends transactions to. */
  chains: WalletChain[];
  /** Any string: the local relay does not check it. Default "local-dev". */
  projectId?: string;
  /**
   * Whether the user approves a session proposal (default true); may look at the proposal. "own chains":
   * approves with the wallet's own chains whatever the dapp asked for (as a wallet that offers only its networks).
   */
  approve?: Approval | ((proposal: Proposal) => Approval | Promise<Approval>);
  /** The wallet's WalletConnect metadata (the dapp sees it as the peer). */
  metadata?: WalletKitTypes.Metadata;
  /** WalletConnect's log level (pino): default "error". */
  logLevel?: "silent" | "error" | "warn" | "info" | "debug" | "trace";
}

/** How the user answers a session proposal. */
export type Approval = boolean | "own chains";

/** One session request the wallet got. */
export interface WalletConnectRequest {
  method: string;
  params: unknown[];
  /** The chain the dapp addressed it to (from "eip155:<id>"). */
  chainId: number;
  topic: string;
}

export interface WalletConnectWallet extends WalletBehaviour {
  address: Address;
  /** "Scans the QR code": pairs with a dapp's `wc:` URI; the proposal is then answered as `approve` says. */
  pair(uri: string): Promise<void>;
  /** Whether the user approves the next proposals ("own chains": with the wallet's chains, not the asked ones). */
  setApprove(approve: Approval): void;
  /** Every session request, in order (including rejected ones). */
  requests: WalletConnectRequest[];
  /** Every session proposal it received (approved or not). */
  proposals: Proposal[];
  /** The active sessions. */
  sessions(): Session[];
  /** The user switches network in the wallet: emits chainChanged on every session that has this chain. */
  switchChain(chainId: number): Promise<void>;
  /** The user disconnects every session from the wallet. */
  disconnect(): Promise<void>;
  /** Closes its relay connection and its timers (its sessions stay, unanswered, on the dapp's side). Idempotent. */
  close(): Promise<void>;
}

/** What it answers; everything else gets a 4200 error. */
export const WALLETCONNECT_METHODS = [
  "personal_sign",
  "eth_signTypedData_v4",
  "eth_sendTransaction",
  "wallet_switchEthereumChain",
  "eth_chainId",
  "eth_accounts",
  "eth_requestAccounts",
];
const EVENTS = ["chainChanged", "accountsChanged"];

/** What a rejected request answers: WalletConnect's (CAIP-25) user-rejected error, which viem maps to 4001's. */
const REQUEST_REJECTED: ProviderErrorShape = getSdkError("USER_REJECTED");

/**
 * A wallet-side WalletConnect client for tests (@reown/walletkit over @walletconnect/core), with its key in
 * this process and its storage in memory. Several can live in one process (each has its own
 * `customStoragePrefix`, so its own Core: WalletConnect keeps one Core per prefix in a global).
 *
 * It sets `process.env.IS_VITEST = "true"` for the whole process before it starts: WalletConnect's own test
 * switch (`isTestRun()` in @walletconnect/utils), the only way to stop the wallet side from asking
 * https://verify.walletconnect.org about every proposal and every request (up to 5 s each when the DNS hangs)
 * and WalletKit from sending its telemetry INIT event to https://pulse.walletconnect.org even with
 * `telemetryEnabled: false` (WALLETS-AND-CHAINS.md §1). The dapp side in the same process benefits too.
 * @example
 * const wallet = await startWalletConnectWallet({ relayUrl: relay.url, account, chains: [{ id: 31337, rpcUrl }] });
 * provider.on("display_uri", (uri) => void wallet.pair(uri));
 */
export async function startWalletConnectWallet(
  options: WalletConnectWalletOptions,
): Promise<WalletConnectWallet> {
  const { account, chains, projectId = "local-dev" } = options;
  if (!chains.length) throw new Error("startWalletConnectWallet: give at least one chain");
  let approve = options.approve ?? true;
  process.env.IS_VITEST = "true";
  const prefix = `latchkey-test-wallet-${randomUUID()}`;
  const core = new Core({
    projectId,
    relayUrl: options.relayUrl,
    customStoragePrefix: prefix,
    telemetryEnabled: false,
    // in memory (Core's default too, but @walletconnect/keyvaluestorage's own is a walletconnect.db file in the cwd)
    storageOptions: { database: ":memory:" },
    logger: options.logLevel ?? "error",
  });
  const kit = await WalletKitClass.init({
    core,
    metadata: options.metadata ?? {
      name: "Latchkey Test Wallet",
      description: "A WalletConnect wallet for Latchkey's tests",
      url: "https://wallet.latchkey.test",
      icons: [],
    },
  });

  // sign-client hands the wallet its next session request 1 s after it answered the previous one (and first
  // 1 s after init): a pacing for real users that only slows tests down
  (kit.engine.signClient.engine as unknown as { requestQueueDelay: number }).requestQueueDelay = 0;

  const { behaviour, gate } = createBehaviour(REQUEST_REJECTED);
  const actions = accountActions(account);
  const byId = new Map(chains.map((c) => [c.id, c]));
  const requests: WalletConnectRequest[] = [];
  const proposals: Proposal[] = [];
  const log = (what: string, error: unknown) =>
    core.logger.error?.(`test wallet: ${what}: ${error instanceof Error ? error.message : String(error)}`);

  const supported = {
    eip155: {
      chains: chains.map((c) => `eip155:${c.id}`),
      methods: WALLETCONNECT_METHODS,
      events: EVENTS,
      accounts: chains.map((c) => `eip155:${c.id}:${account.address}`),
    },
  };

  async function onProposal({ id, params }: WalletKitTypes.SessionProposal): Promise<void> {
    proposals.push(params);
    const approved = typeof approve === "function" ? await approve(params) : approve;
    if (!approved) {
      await kit.rejectSession({ id, reason: getSdkError("USER_REJECTED") });
      return;
    }
    if (approved === "own chains") {
      await kit.approveSession({ id, namespaces: supported });
      return;
    }
    let namespaces: ReturnType<typeof buildApprovedNamespaces>;
    try {
      namespaces = buildApprovedNamespaces({ proposal: params, supportedNamespaces: supported });
    } catch (error) {
      log("proposal not supported", error);
      await kit.rejectSession({ id, reason: getSdkError("UNSUPPORTED_NAMESPACE_KEY") });
      return;
    }
    await kit.approveSession({ id, namespaces });
  }

  /** The chains a session approved (eip155 ids). */
  const sessionChains = (topic: string): number[] => {
    const session = kit.getActiveSessions()[topic];
    return (session?.namespaces.eip155?.accounts ?? []).map((a) => Number(a.split(":")[1]));
  };

  async function handle(method: string, params: unknown[], chainId: number, topic: string): Promise<unknown> {
    const chain = byId.get(chainId);
    if (!chain) throw new ProviderError({ code: 4902, message: `Unrecognized chain ID eip155:${chainId}.` });
    switch (method) {
      case "personal_sign":
        return actions.personalSign(params);
      case "eth_signTypedData_v4":
        return actions.signTypedData(params);
      case "eth_sendTransaction":
        return actions.sendTransaction(chain, params);
      case "eth_chainId":
        return numberToHex(chainId);
      case "eth_accounts":
      case "eth_requestAccounts":
        return [account.address];
      case "wallet_switchEthereumChain": {
        const target = parseChainId((params[0] as { chainId?: unknown } | undefined)?.chainId);
        if (!sessionChains(topic).includes(target) || !byId.has(target)) {
          const hex = numberToHex(target);
          throw new ProviderError({ code: 4902, message: `Unrecognized chain ID "${hex}".` });
        }
        await emitChainChanged(topic, target);
        return null;
      }
      default:
        throw new ProviderError({ code: 4200, message: `The wallet does not support ${method}.` });
    }
  }

  async function onRequest({ id, topic, params: { request, chainId } }: WalletKitTypes.SessionRequest) {
    const params = Array.isArray(request.params)
      ? request.params
      : request.params == null
        ? []
        : [request.params];
    const chain = Number(chainId.split(":")[1]);
    requests.push({ method: request.method, params, chainId: chain, topic });
    let response: { result: unknown } | { error: { code: number; message: string } };
    try {
      await gate(request.method);
      response = { result: (await handle(request.method, params, chain, topic)) ?? null };
    } catch (error) {
      const { code, message } = toProviderError(error);
      response = { error: { code, message } };
    }
    await kit.respondSessionRequest({ topic, response: { id, jsonrpc: "2.0", ...response } });
  }

  const emitChainChanged = (topic: string, chainId: number) =>
    kit.emitSessionEvent({
      topic,
      event: { name: "chainChanged", data: chainId },
      chainId: `eip155:${chainId}`,
    });

  kit.on("session_proposal", (proposal) => void onProposal(proposal).catch((e) => log("proposal", e)));
  kit.on("session_request", (request) => void onRequest(request).catch((e) => log("request", e)));

  let closing: Promise<void> | undefined;
  return {
    address: account.address,
    pair: (uri) => kit.pair({ uri }).then(() => undefined),
    setApprove: (value) => {
      approve = value;
    },
    requests,
    proposals,
    sessions: () => Object.values(kit.getActiveSessions()),
    async switchChain(chainId) {
      const topics = Object.keys(kit.getActiveSessions()).filter((t) => sessionChains(t).includes(chainId));
      if (!topics.length) throw new Error(`No session has chain ${chainId}`);
      await Promise.all(topics.map((t) => emitChainChanged(t, chainId)));
    },
    async disconnect() {
      const topics = Object.keys(kit.getActiveSessions());
      await Promise.all(
        topics.map((topic) => kit.disconnectSession({ topic, reason: getSdkError("USER_DISCONNECTED") })),
      );
    },
    close() {
      closing ??= closeWalletConnectCore(core);
      return closing;
    },
    ...behaviour,
  };
}

/** The parts of a WalletConnect Core (`new Core()`, or a dapp's `provider.client.core`) that keep running. */
export interface ClosableCore {
  customStoragePrefix: string;
  heartbeat: { stop(): void };
  relayer: { transportClose(): Promise<void> };
}

/** The relayer's insides that (re)open its socket: any subscribe, publish or ping does, even after a close. */
interface RelayerInternals {
  connect(...args: unknown[]): Promise<void>;
  transportOpen(...args: unknown[]): Promise<void>;
  restartTransport(...args: unknown[]): Promise<void>;
  request(...args: unknown[]): Promise<unknown>;
  connectPromise?: Promise<void>;
}

/**
 * Stops a WalletConnect Core for good: its heartbeat timer and its relay socket, and forgets it from
 * WalletConnect's global registry (`_walletConnectCore_<prefix>`). `relayer.transportClose()` alone is not
 * enough: work still under way (the unsubscribes after a disconnect, a queued publish) reconnects at once, so
 * the relayer is first made unable to connect or send. For a dapp: `await provider.disconnect()` first (it
 * tells the wallet), then `closeWalletConnectCore(provider.client.core)`.
 */
export async function closeWalletConnectCore(core: ClosableCore): Promise<void> {
  core.heartbeat.stop();
  const relayer = core.relayer as ClosableCore["relayer"] & RelayerInternals;
  // answered with nothing rather than an error: the callers are often fire-and-forget (unhandled rejections)
  const idle = () => Promise.resolve(undefined);
  relayer.connect = idle;
  relayer.transportOpen = idle;
  relayer.restartTransport = idle;
  relayer.request = idle;
  await relayer.connectPromise?.catch(() => {});
  await relayer.transportClose().catch(() => {});
  const registry = globalThis as Record<string, unknown>;
  delete registry[`_walletConnectCore_${core.customStoragePrefix}`];
  delete registry[`_walletConnectCore_${core.customStoragePrefix}_count`];
}
