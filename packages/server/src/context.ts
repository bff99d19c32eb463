import type { Rpc, SolanaRpcApi } from "@solana/kit";
import type { PublicClient } from "viem";
import type { Keyring } from "./crypto/keyring";
import type { DerivedAccount } from "./crypto/wallet";
import type { Db, DbKind } from "./db";
import type { SealedWallet } from "./db/schema";
import type { ChainSettings } from "./features/sponsorship/evm/config";
import type { RateLimits } from "./limits/config";
import type { Mailer } from "./mail/mailer";
import type { ServiceKeys } from "./serviceKeys/serviceKeys";

/** Where randomness comes from: node:crypto in the service, anything deterministic in a test. */
export interface Random {
  uuid(): string;
  bytes(n: number): Buffer;
  /** A uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

/** Process-local caches a service owns (two services in one process never share them). */
export interface ServiceCaches {
  /** Unrevoked session/API keys by public key, for the stamp check (auth/stamps/stampKeyCache.ts). */
  stampKeys: Map<string, { rows: StampKeyRow[]; at: number }>;
  /**
   * Wallet accounts (still sealed) by org and address, for the signing path. A split wallet's account
   * carries its public parts and the sealed service share: never an opened share or key.
   */
  signingAccounts: Map<
    string,
    {
      id: string;
      curve: "CURVE_SECP256K1" | "CURVE_ED25519";
      sealed: string;
      split?: SplitAccount;
    }
  >;
  /** OpenID discovery, client and JWKS per provider (oauthProviders/providerRuntime.ts). */
  providerRuntimes: Map<string, unknown>;
  /** The key sets of apps' backends that authenticate with a JWT, by JWKS URL (apps/appJwt.ts). */
  appJwks: Map<string, unknown>;
}

/** What the signing path knows of a split wallet's account (custody/splitKey.ts): public parts and ciphertext. */
export interface SplitAccount {
  walletId: string;
  /** The account's position among the wallet secret's keys. */
  secretIndex: number;
  /** The stored public key (hex, as protocol's `publicKeyOf` writes it): what the combined key must match. */
  publicKey: string;
  /** The service share, sealed under `wallet_share:<walletId>` (ciphertext: not a secret to cache). */
  sealedServiceShare: string;
}

export interface StampKeyRow {
  id: string;
  expires_at: number | null;
  org_id: string;
  user_id: string;
  app_id: string;
  email: string | null;
}

/** An EVM chain from the service's config (`chains`), with a JSON-RPC client for it. */
export interface ConfiguredChain extends ChainSettings {
  client: PublicClient;
}

/** The Solana node from the service's config (`solana.rpcUrl`), with a JSON-RPC client for it. */
export interface ConfiguredSolana {
  rpcUrl: string;
  rpc: Rpc<SolanaRpcApi>;
}

export interface AuditFields {
  appId?: string;
  userId?: string;
  ip?: string;
  details?: object;
}

/** Where sign-ups take ready wallets from: the wallet reserve. */
export interface WalletSource {
  /** How many wallets it keeps ready. */
  readonly target: number;
  /** True when a claim is likely to find a wallet. */
  readonly likelyStocked: boolean;
  /** Takes one wallet inside `trx`, the sign-up's transaction; null when there is none. */
  claim(trx: Db): Promise<SealedWallet | null>;
  close(): Promise<void>;
}

/**
 * Everything a use case may need, built once by the composition root (createService.ts). A function
 * declares the part it uses, e.g. `ctx: Pick<ServiceContext, "db" | "now">`; clock and randomness come
 * from here, never from `Date.now()` or `Math.random()`.
 */
export interface ServiceContext {
  db: Db;
  dbKind: DbKind;
  keyring: Keyring;
  mailer: Mailer;
  apps: import("./apps/appDirectory").AppDirectory;
  limits: RateLimits;
  now: () => number;
  random: Random;
  otpKey: Buffer;
  /** Derives new wallets on worker threads. */
  wallets: { derive(mnemonic: string): Promise<DerivedAccount[]> };
  /** Wallets derived ahead of sign-ups (users/walletReserve.ts; set when the service keeps a reserve). */
  walletReserve?: WalletSource;
  caches: ServiceCaches;
  dev: boolean;
  /** EVM chains the service reads for sponsorship and SIWE contract-wallet signatures, by chain id. */
  chains: ReadonlyMap<number, ConfiguredChain>;
  /** The Solana node fee-payer requests are checked against (fresh blockhash, funded fee payer), if set. */
  solana?: ConfiguredSolana;
  /** Keys the service itself holds (paymaster signer, Solana fee payer), created on first use, sealed at rest. */
  serviceKeys: ServiceKeys;
  /** The service's public base URL (OAuth callback, SIWE tokens' `iss`); else taken from each request. */
  publicUrl?: string;
  /** Appends to the audit log; `into` lets a transaction write it with the change it records. */
  audit(event: string, fields: AuditFields, into?: Db): Promise<void>;
}
