import { base58Decode } from "@latchkey/protocol/codecs";
import {
  SolanaSignAndSendTransaction,
  type SolanaSignAndSendTransactionFeature,
  type SolanaSignAndSendTransactionInput,
  type SolanaSignAndSendTransactionOutput,
  SolanaSignMessage,
  type SolanaSignMessageFeature,
  type SolanaSignMessageInput,
  type SolanaSignMessageOutput,
  SolanaSignTransaction,
  type SolanaSignTransactionFeature,
  type SolanaSignTransactionInput,
  type SolanaSignTransactionOutput,
} from "@solana/wallet-standard-features";
import type { IdentifierString, Wallet, WalletAccount, WalletIcon } from "@wallet-standard/base";
import {
  StandardConnect,
  type StandardConnectFeature,
  type StandardConnectInput,
  type StandardConnectOutput,
  StandardDisconnect,
  type StandardDisconnectFeature,
  StandardEvents,
  type StandardEventsChangeProperties,
  type StandardEventsFeature,
  type StandardEventsListeners,
  type StandardEventsNames,
} from "@wallet-standard/features";
import { ReadonlyWalletAccount } from "@wallet-standard/wallet";
import { toSolanaSigner } from "../accounts/toSolanaSigner";
import { SignerError } from "../errors";
import { SolanaError } from "../errors/solana";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import type {
  SolanaChain,
  SolanaCommitment,
  SolanaOptions,
  SolanaRpcLike,
  SolanaSigner,
} from "../types/solana";

/** The Latchkey key on a dark tile (the EIP-6963 announcement's icon), as wallet-standard wants it: base64. */
export const LATCHKEY_WALLET_ICON: WalletIcon =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI5NiIgaGVpZ2h0PSI5NiIgdmlld0JveD0iMCAwIDk2IDk2Ij48cmVjdCB3aWR0aD0iOTYiIGhlaWdodD0iOTYiIHJ4PSIyMiIgZmlsbD0iIzExMTgyNyIvPjxjaXJjbGUgY3g9IjQ4IiBjeT0iNDAiIHI9IjE1IiBmaWxsPSIjZmJiZjI0Ii8+PHBhdGggZD0iTTQxIDQ3aDE0bDUgMjlIMzZ6IiBmaWxsPSIjZmJiZjI0Ii8+PC9zdmc+";

/** How the wallet presents itself and where it sends. */
export interface LatchkeySolanaWalletOptions {
  /** The cluster it serves (default: `SignerOptions.solana.chain`, else `solana:mainnet`). */
  chain?: SolanaChain;
  /** Where `solana:signAndSendTransaction` sends (default: `SignerOptions.solana.rpcUrl`). */
  rpcUrl?: string;
  /** Or a @solana/kit `Rpc` (or URL) to send through, in place of `rpcUrl`. */
  connection?: string | SolanaRpcLike;
  /** What `signAndSendTransaction` waits for unless the app asks otherwise (default `confirmed`). */
  commitment?: SolanaCommitment;
  /** The name wallet lists show (default "Latchkey"). */
  name?: string;
  icon?: WalletIcon;
}

/** The features of the Latchkey Solana wallet. */
export type LatchkeySolanaWalletFeatures = StandardConnectFeature &
  StandardDisconnectFeature &
  StandardEventsFeature &
  SolanaSignMessageFeature &
  SolanaSignTransactionFeature &
  SolanaSignAndSendTransactionFeature;

const ACCOUNT_FEATURES = [SolanaSignAndSendTransaction, SolanaSignTransaction, SolanaSignMessage] as const;

/**
 * The user's embedded Solana account as a wallet-standard wallet: apps list it beside injected wallets
 * (the Solana wallet adapter, @solana/react and kit's wallet hooks discover it). Its account is the
 * signed-in user's once the app connects; signing goes through the service like every Latchkey
 * signature, sending through the configured RPC.
 */
export class LatchkeySolanaWallet implements Wallet {
  readonly version = "1.0.0" as const;
  readonly name: string;
  readonly icon: WalletIcon;
  readonly chains: readonly SolanaChain[];
  readonly features: LatchkeySolanaWalletFeatures;
  readonly #signer: SignerBase;
  readonly #connection: string | SolanaRpcLike | undefined;
  readonly #commitment: SolanaCommitment;
  readonly #listeners = new Set<StandardEventsListeners["change"]>();
  readonly #unwatch: () => void;
  #connected = false;
  #account: ReadonlyWalletAccount | null = null;

  constructor(signer: SignerBase, options: LatchkeySolanaWalletOptions = {}) {
    const defaults: SolanaOptions = signer._internal.options.solana ?? {};
    this.#signer = signer;
    this.name = options.name ?? "Latchkey";
    this.icon = options.icon ?? LATCHKEY_WALLET_ICON;
    this.chains = [options.chain ?? defaults.chain ?? "solana:mainnet"];
    this.#connection = options.connection ?? options.rpcUrl ?? defaults.rpcUrl;
    this.#commitment = options.commitment ?? "confirmed";
    this.features = {
      [StandardConnect]: { version: "1.0.0", connect: (input) => this.#connect(input) },
      [StandardDisconnect]: { version: "1.0.0", disconnect: async () => this.#disconnect() },
      [StandardEvents]: { version: "1.0.0", on: (event, listener) => this.#on(event, listener) },
      [SolanaSignMessage]: { version: "1.1.0", signMessage: (...inputs) => this.#signMessage(inputs) },
      [SolanaSignTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: (...inputs) => this.#signTransaction(inputs),
      },
      [SolanaSignAndSendTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signAndSendTransaction: (...inputs) => this.#signAndSendTransaction(inputs),
      },
    };
    // Sign-in, sign-out and another user change the account the app sees (once it has connected).
    this.#unwatch = signer.store.subscribe(
      (state) => state.user?.solanaAddress,
      () => {
        if (this.#connected) this.#emit({ accounts: this.accounts });
      },
    );
  }

  /** The signed-in user's account once the app has connected; none before, after a disconnect or sign-out. */
  get accounts(): readonly WalletAccount[] {
    const account = this.#currentAccount();
    return this.#connected && account ? [account] : [];
  }

  /** Stops watching the signer and forgets the listeners (the wallet is unregistered). */
  destroy(): void {
    this.#unwatch();
    this.#listeners.clear();
    this.#connected = false;
  }

  #currentAccount(): ReadonlyWalletAccount | null {
    const address = this.#signer.store.getState().user?.solanaAddress;
    if (!address) return null;
    if (this.#account?.address !== address) {
      const publicKey = base58Decode(address);
      if (!publicKey) throw new TypeError(`Not base58: ${address}`);
      this.#account = new ReadonlyWalletAccount({
        address,
        publicKey,
        chains: [...this.chains],
        features: [...ACCOUNT_FEATURES],
      });
    }
    return this.#account;
  }

  #emit(properties: StandardEventsChangeProperties): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(properties);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #on<E extends StandardEventsNames>(event: E, listener: StandardEventsListeners[E]): () => void {
    if (event !== "change") return () => {};
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async #connect(input?: StandardConnectInput): Promise<StandardConnectOutput> {
    if (input?.silent) {
      // A silent reconnect answers what there is, and never fails for want of a user.
      await this.#signer._internal.lifecycle.init();
      if (!this.#currentAccount()) return { accounts: [] };
    } else {
      await requireUser(this.#signer);
      if (!this.#currentAccount()) throw new SignerError("NO_SOLANA_ADDRESS");
    }
    if (!this.#connected) {
      this.#connected = true;
      this.#emit({ accounts: this.accounts });
    }
    return { accounts: this.accounts };
  }

  #disconnect(): void {
    if (!this.#connected) return;
    this.#connected = false;
    this.#emit({ accounts: [] });
  }

  /** The user's signer, when `account` is the user's and `chain` (if named) is served. */
  async #signerFor(account: WalletAccount, chain?: IdentifierString): Promise<SolanaSigner> {
    if (chain !== undefined && !this.chains.includes(chain as SolanaChain))
      throw new SolanaError("SOLANA_CHAIN_UNSUPPORTED", {
        details: `${chain} (this wallet serves ${this.chains.join(", ")})`,
      });
    await requireUser(this.#signer);
    const solana = toSolanaSigner(this.#signer);
    if (account.address !== solana.address)
      throw new SolanaError("SOLANA_ACCOUNT_MISMATCH", { details: account.address });
    return solana;
  }

  async #signMessage(inputs: readonly SolanaSignMessageInput[]): Promise<SolanaSignMessageOutput[]> {
    const outputs: SolanaSignMessageOutput[] = [];
    for (const { account, message } of inputs) {
      const solana = await this.#signerFor(account);
      const signature = await solana.signMessage(message);
      outputs.push({ signedMessage: message, signature, signatureType: "ed25519" });
    }
    return outputs;
  }

  async #signTransaction(
    inputs: readonly SolanaSignTransactionInput[],
  ): Promise<SolanaSignTransactionOutput[]> {
    const { signWireTransaction } = await import("./walletOps");
    const outputs: SolanaSignTransactionOutput[] = [];
    for (const input of inputs) {
      const solana = await this.#signerFor(input.account, input.chain);
      const { wire } = await signWireTransaction(solana, input.transaction);
      outputs.push({ signedTransaction: wire });
    }
    return outputs;
  }

  async #signAndSendTransaction(
    inputs: readonly SolanaSignAndSendTransactionInput[],
  ): Promise<SolanaSignAndSendTransactionOutput[]> {
    const { signAndSendWireTransaction } = await import("./walletOps");
    const outputs: SolanaSignAndSendTransactionOutput[] = [];
    for (const input of inputs) {
      const solana = await this.#signerFor(input.account, input.chain);
      const { commitment, preflightCommitment, skipPreflight, maxRetries } = input.options ?? {};
      const signature = await signAndSendWireTransaction(solana, input.transaction, this.#connection, {
        commitment: commitment ?? this.#commitment,
        ...(preflightCommitment ? { preflightCommitment } : {}),
        ...(skipPreflight !== undefined ? { skipPreflight } : {}),
        ...(maxRetries !== undefined ? { maxRetries } : {}),
      });
      outputs.push({ signature });
    }
    return outputs;
  }
}

/**
 * Registers `wallet` with every wallet-standard app on the page, the way `registerWallet` of
 * @wallet-standard/wallet does (announce it now, and answer each `wallet-standard:app-ready` later), but
 * keeps what each app's `register` answers, so the wallet can be unregistered. Outside a browser (no
 * `window`) nothing happens.
 */
export function registerStandardWallet(wallet: Wallet): () => void {
  const win = (globalThis as { window?: EventTarget }).window;
  if (!win || typeof win.addEventListener !== "function") return () => {};
  const unregisters: (() => void)[] = [];
  const register = (api: { register(wallet: Wallet): () => void }) => {
    const unregister = api.register(wallet);
    if (typeof unregister === "function") unregisters.push(unregister);
  };
  const onAppReady = (event: Event) => register((event as CustomEvent).detail);
  win.addEventListener("wallet-standard:app-ready", onAppReady);
  win.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
  let registered = true;
  return () => {
    if (!registered) return;
    registered = false;
    win.removeEventListener("wallet-standard:app-ready", onAppReady);
    for (const unregister of unregisters.splice(0)) unregister();
  };
}
