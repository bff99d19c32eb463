import type { Address } from "viem";
import {
  type ChainStack,
  LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08,
  type LocalNode,
  SIMPLE_ACCOUNT_FACTORY_08,
  startChainStack,
  startLocalNode,
} from "../../../test-support/chain/index.js";
import { type SolanaRpcNode, startSolanaRpc } from "../../../test-support/solana/rpc.js";
import { startWalletConnectRelay, type WalletConnectRelay } from "../../../test-support/wallets/relay.js";

/** The ports the devnet listens on by default (`--ports=auto` picks free ones instead). */
export const DEFAULT_PORTS = { chain: 8545, bundler: 4337, solana: 8899, relay: 8590, secondChain: 8546 };

/** Which port each part takes; `undefined` = a free one. */
export interface DevnetPorts {
  chain?: number | undefined;
  bundler?: number | undefined;
  solana?: number | undefined;
  relay?: number | undefined;
  secondChain?: number | undefined;
}

export interface DevnetOptions {
  ports?: DevnetPorts;
  /** Signer addresses the paymaster accepts from the start (the service's: `latchkey paymaster-signer`). */
  paymasterSigners?: Address[];
  /** Solana addresses airdropped `feePayerLamports` at start (the service's: `latchkey solana-fee-payer`). */
  solanaFeePayers?: string[];
  /** What each Solana fee payer gets (default 1,000 SOL). */
  feePayerLamports?: bigint;
  /** A second, bare EVM chain with this chain id (for external wallets to switch to). */
  secondChainId?: number | undefined;
}

/** What the devnet runs: every URL and contract address the service and the app need. */
export interface DevnetInfo {
  chain: {
    chainId: number;
    rpcUrl: string;
    bundlerUrl: string;
    entryPoint: Address;
    simple7702Account: Address;
    accountFactory: Address;
    latchkeyAccountFactory: Address;
    paymaster: Address;
    counter: Address;
  };
  secondChain?: { chainId: number; rpcUrl: string };
  solana: { rpcUrl: string; wsUrl: string };
  walletConnect: { projectId: string; relayUrl: string };
}

export interface Devnet extends DevnetInfo {
  /** Stops every part and child process. Idempotent. */
  stop(): Promise<void>;
}

/** What a Solana fee payer gets by default: 1,000 SOL, enough for 100 million sponsored fees. */
export const FEE_PAYER_LAMPORTS = 1_000n * 1_000_000_000n;

/**
 * Starts the dev stack (about 3 s): a hardhat chain with EntryPoint v0.8, the account factories,
 * Simple7702Account and the verifying paymaster, the alto bundler, a Solana node (litesvm behind
 * JSON-RPC) and a WalletConnect relay. A part that fails to start stops the others.
 */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const ports = options.ports ?? {};
  let stack: ChainStack | undefined;
  let second: LocalNode | undefined;
  let solana: SolanaRpcNode | undefined;
  let relay: WalletConnectRelay | undefined;
  const stop = async () => {
    await Promise.allSettled([stack?.stop(), second?.stop(), solana?.close(), relay?.close()]);
  };
  try {
    const secondChainId = options.secondChainId;
    const results = await Promise.allSettled([
      startChainStack({
        port: ports.chain,
        bundlerPort: ports.bundler,
        paymasterSigners: options.paymasterSigners ?? [],
      }).then((s) => {
        stack = s;
      }),
      secondChainId
        ? startLocalNode({ chainId: secondChainId, port: ports.secondChain }).then((n) => {
            second = n;
          })
        : undefined,
      startSolanaRpc({ port: ports.solana ?? 0 }).then((n) => {
        solana = n;
      }),
      startWalletConnectRelay({ port: ports.relay ?? 0 }).then((r) => {
        relay = r;
      }),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    if (!stack || !solana || !relay) throw new Error("a part of the devnet did not start");
    for (const feePayer of options.solanaFeePayers ?? []) {
      await airdrop(solana.url, feePayer, options.feePayerLamports ?? FEE_PAYER_LAMPORTS);
    }
    return {
      chain: {
        chainId: stack.chainId,
        rpcUrl: stack.rpcUrl,
        bundlerUrl: stack.bundlerUrl,
        entryPoint: stack.entryPoint,
        simple7702Account: stack.simple7702Account,
        accountFactory: SIMPLE_ACCOUNT_FACTORY_08,
        latchkeyAccountFactory: LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08,
        paymaster: stack.paymaster,
        counter: stack.counter,
      },
      ...(second ? { secondChain: { chainId: second.chainId, rpcUrl: second.rpcUrl } } : {}),
      solana: { rpcUrl: solana.url, wsUrl: solana.wsUrl },
      walletConnect: { projectId: "local-dev", relayUrl: relay.url },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Airdrops `lamports` to `to` through the node's own `requestAirdrop`; resolves with the signature. */
export async function airdrop(solanaUrl: string, to: string, lamports: bigint): Promise<string> {
  // JSON-RPC carries lamports as a number: above 2^53 it would be rounded.
  if (lamports <= 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`cannot airdrop ${lamports} lamports`);
  const response = await fetch(solanaUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [to, Number(lamports)] }),
  });
  const body = (await response.json()) as { result?: string; error?: { message: string } };
  if (!body.result) throw new Error(`airdrop to ${to} failed: ${body.error?.message ?? "no answer"}`);
  return body.result;
}
