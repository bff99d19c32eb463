import { readFileSync } from "node:fs";
import { isLoopbackAnyPort } from "@latchkey/protocol";
import { isAddress as isSolanaAddress } from "@solana/kit";
import { getAddress } from "viem";
import { z } from "zod";
import { webhooksConfigSchema } from "./features/webhooks/config";
import { signingPolicySchema } from "./keyManagement/policies/policySchema";
import { retentionSchema } from "./limits/retention";
import { MAIL_LOCALES } from "./mail/locales";
import { PROVIDERS } from "./oauthProviders/providers";

/** An origin, or a loopback host on any port for local development (`http://localhost:*`). */
const originSchema = z.union([
  z.string().refine(isLoopbackAnyPort),
  z
    .string()
    .url()
    .transform((u) => new URL(u).origin),
]);

/** A return URL, or one on a loopback host on any port (`http://localhost:*\/done`). */
const returnUrlSchema = z.union([
  z.string().regex(/^http:\/\/(localhost|127\.0\.0\.1|\[::1\]):\*(\/\S*)?$/),
  z.string().url(),
]);

/** Issuers and default scopes of the named providers (oauthProviders/providers); `issuer` points any elsewhere. */
export const KNOWN_OAUTH_PROVIDERS: Record<string, { issuer?: string; scopes: string[]; name: string }> =
  Object.fromEntries(
    Object.values(PROVIDERS).map((d) => [
      d.id,
      { ...(d.issuer ? { issuer: d.issuer } : {}), scopes: d.defaultScopes, name: d.name },
    ]),
  );

export const oauthProviderConfigSchema = z
  .object({
    /** google, facebook, apple, twitch, auth0, or a custom id with `isCustomProvider`. */
    id: z.string().regex(/^[a-z0-9_-]{1,64}$/),
    issuer: z.string().url().optional(),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
    isCustomProvider: z.boolean().optional(),
    auth0Connection: z.string().optional(),
    displayName: z.string().optional(),
    /** Allow an http:// issuer (local dev providers only). */
    allowInsecureHttp: z.boolean().optional(),
    /** OAuth 2.0 providers (facebook, github, discord): endpoints other than the real ones (local stand-ins). */
    endpoints: z
      .object({ authorization: z.string().url(), token: z.string().url(), userInfo: z.string().url() })
      .partial()
      .optional(),
    /** Sign in with Apple: the team, the key id and the `.p8` private key (PEM) the client secret is signed with. */
    apple: z
      .object({
        teamId: z.string().regex(/^[A-Za-z0-9]{1,32}$/),
        keyId: z.string().regex(/^[A-Za-z0-9]{1,32}$/),
        privateKey: z.string().includes("PRIVATE KEY", { message: "must be the .p8 key in PEM form" }),
      })
      .optional(),
  })
  .refine((p) => p.issuer || (KNOWN_OAUTH_PROVIDERS[p.id]?.issuer && !p.isCustomProvider), {
    message: "issuer is required for this provider",
  })
  .refine((p) => p.isCustomProvider || p.id !== "apple" || p.apple || p.clientSecret, {
    message: "apple needs `apple` (teamId, keyId, privateKey) to sign its client secret",
  })
  .refine((p) => p.isCustomProvider || PROVIDERS[p.id]?.protocol !== "oauth2" || p.clientSecret, {
    message: "clientSecret is required for this provider",
  });
export type OauthProviderConfig = z.infer<typeof oauthProviderConfigSchema>;

/** An EVM address, any case; kept checksummed (EIP-55). */
export const evmAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address: 0x followed by 40 hex digits")
  .transform((a) => getAddress(a.toLowerCase()));

/** A wei amount: a whole number written as a decimal string (JSON numbers cannot hold 10^18 exactly). */
const weiSchema = z
  .string({ error: 'must be a decimal string of wei, e.g. "1000000000000000"' })
  .regex(/^\d{1,78}$/, 'must be a decimal string of wei, e.g. "1000000000000000"')
  .transform((v) => BigInt(v).toString());

const countSchema = z.number().int("must be a whole number").positive("must be at least 1");

/** The canonical ERC-4337 EntryPoint v0.8 and its SimpleAccountFactory (the addresses every chain has). */
export const ENTRY_POINT_V08 = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108";
export const SIMPLE_ACCOUNT_FACTORY_V08 = "0x13E9ed32155810FDbd067D4522C492D6f68E5944";
/**
 * LatchkeySimpleAccountFactory for EntryPoint v0.8 (SimpleAccount with ERC-1271, the factory of new 4337
 * accounts): the CREATE2 deployer's deployment with salt 0 of test-support/chain/contracts' artifact.
 */
export const LATCHKEY_SIMPLE_ACCOUNT_FACTORY_V08 = "0x73666E96bfB48bCEAaf78F7186a760b50167E364";
/** Simple7702Account v0.8 (eth-infinitism), the canonical EIP-7702 delegate of a 7702 account. */
export const SIMPLE_7702_ACCOUNT_V08 = "0xe6Cae83BdE06E4c305530e199D7217f42808555B";

/**
 * A chain the service talks to for sponsorship and Sign-In with Ethereum: its JSON-RPC node (which also
 * checks contract wallets' SIWE signatures, ERC-1271 and ERC-6492), the EntryPoint v0.8 and the account
 * factories user operations are checked against, and the verifying paymaster (Pimlico SingletonPaymasterV8)
 * whose signer the service holds (`latchkey paymaster-signer` prints its address).
 */
export const chainConfigSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  entryPoint: evmAddressSchema.default(ENTRY_POINT_V08),
  accountFactory: evmAddressSchema.default(SIMPLE_ACCOUNT_FACTORY_V08),
  /** The factory of LatchkeySimpleAccounts (new 4337 users), sponsored beside `accountFactory`'s. */
  latchkeyAccountFactory: evmAddressSchema.default(LATCHKEY_SIMPLE_ACCOUNT_FACTORY_V08),
  paymaster: evmAddressSchema.optional(),
});
/** A chain as written in a config file. */
export type ChainConfig = z.input<typeof chainConfigSchema>;
export type ChainSettings = z.infer<typeof chainConfigSchema>;

export const chainsSchema = z.array(chainConfigSchema).superRefine((chains, c) => {
  const seen = new Set<number>();
  for (const [i, chain] of chains.entries()) {
    if (seen.has(chain.chainId))
      c.addIssue({ code: "custom", path: [i, "chainId"], message: `chain ${chain.chainId} is listed twice` });
    seen.add(chain.chainId);
  }
});

/**
 * A sponsorship policy: which chain, which contracts (and functions) a sponsored user operation may call,
 * and what it may cost. Daily limits count per UTC day, for this policy.
 */
const policyIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, '_', '.' or '-'");

export const sponsorshipPolicySchema = z.object({
  /** What the client passes as `context.policyId`, e.g. "pol_counter". */
  id: policyIdSchema,
  chainId: z.number().int().positive(),
  /** When set, every call of the operation must go to one of these (and, if listed, these functions). */
  allowedTargets: z
    .array(
      z.object({
        address: evmAddressSchema,
        /** 4-byte selectors, e.g. "0xd09de08a"; a call without data has none and is refused when listed. */
        selectors: z
          .array(
            z
              .string()
              .regex(/^0x[0-9a-fA-F]{8}$/, 'must be a 4-byte selector such as "0xd09de08a"')
              .transform((s) => s.toLowerCase()),
          )
          .min(1)
          .optional(),
      }),
    )
    .optional(),
  /**
   * EIP-7702 accounts (an app user's EOA as the sender): the implementations it may delegate to, by its
   * code (0xef0100 ‖ implementation) or, on its first operation, by the operation's `eip7702Auth`.
   */
  allowedImplementations: z.array(evmAddressSchema).max(16).default([SIMPLE_7702_ACCOUNT_V08]),
  limits: z
    .object({
      /** callGasLimit + verificationGasLimit + preVerificationGas + the paymaster's two gas limits. */
      gasPerOperation: countSchema.optional(),
      /** That gas × maxFeePerGas: the most the operation can cost the paymaster. */
      weiPerOperation: weiSchema.optional(),
      operationsPerUserPerDay: countSchema.optional(),
      weiPerUserPerDay: weiSchema.optional(),
      operationsPerAppPerDay: countSchema.optional(),
      weiPerAppPerDay: weiSchema.optional(),
    })
    .strict()
    .default({}),
});
export type SponsorshipPolicy = z.infer<typeof sponsorshipPolicySchema>;

/** A Solana address (base58 of 32 bytes), e.g. a program id. */
export const solanaAddressSchema = z
  .string()
  .refine((a) => isSolanaAddress(a), "must be a Solana address (base58 of 32 bytes)");

/** Lamports: a whole number, or a decimal string (up to u64); kept as a decimal string. */
const lamportsSchema = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)], {
    error: 'must be lamports: a whole number, or a decimal string such as "10000000000"',
  })
  .transform((v) => BigInt(v).toString())
  .refine((v) => BigInt(v) < 2n ** 64n, "must fit in 64 bits");

/** What the fee payer pays at most for one transaction when the policy does not say: 0.0001 SOL. */
export const DEFAULT_FEE_LAMPORTS_PER_TRANSACTION = "100000";

/**
 * A Solana fee sponsorship policy (`latchkey_requestFeePayer` at /rpc/v1): which programs (and
 * instructions) a sponsored transaction may call, and what it may move and cost. The service's fee payer
 * pays the fee only: a transaction that names it in an instruction is always refused. The ComputeBudget
 * program is always allowed (it sets the compute limit and the priority fee, which `feeLamportsPerTransaction`
 * bounds). Daily limits count per UTC day, for this policy.
 */
export const solanaSponsorshipPolicySchema = z
  .object({
    /** What the client passes as `policyId`; unique across the app's EVM and Solana policies. */
    id: policyIdSchema,
    /** When set, every instruction must call one of these programs (and, if listed, these instructions). */
    allowedPrograms: z
      .array(
        z
          .object({
            programId: solanaAddressSchema,
            /**
             * Hex prefixes of the instruction data, e.g. "02000000" (the System program's transfer); an
             * instruction whose data starts with none of them is refused.
             */
            instructions: z
              .array(
                z
                  .string()
                  .regex(
                    /^(0x)?([0-9a-fA-F]{2}){1,64}$/,
                    'must be hex bytes the instruction data starts with, e.g. "02000000"',
                  )
                  .transform((h) => h.replace(/^0x/, "").toLowerCase()),
              )
              .min(1)
              .optional(),
          })
          .strict(),
      )
      .optional(),
    limits: z
      .object({
        /**
         * Lamports moved by the System program's transfer, transferWithSeed, createAccount,
         * createAccountWithSeed and withdrawNonceAccount instructions, summed over the transaction.
         */
        lamportsPerTransaction: lamportsSchema.optional(),
        /** 5000 per signature plus the priority fee (compute unit price × limit): what the fee payer pays. */
        feeLamportsPerTransaction: lamportsSchema.default(DEFAULT_FEE_LAMPORTS_PER_TRANSACTION),
        transactionsPerUserPerDay: countSchema.optional(),
        feeLamportsPerUserPerDay: lamportsSchema.optional(),
        transactionsPerAppPerDay: countSchema.optional(),
        feeLamportsPerAppPerDay: lamportsSchema.optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type SolanaSponsorshipPolicy = z.infer<typeof solanaSponsorshipPolicySchema>;

export const sponsorshipConfigSchema = z
  .object({
    /** ERC-7677 paymaster policies (EVM user operations). */
    policies: z.array(sponsorshipPolicySchema).default([]),
    /** Solana fee payer policies (`latchkey_requestFeePayer`). */
    solanaPolicies: z.array(solanaSponsorshipPolicySchema).default([]),
  })
  .superRefine((config, c) => {
    // One namespace: a client's policyId names one policy, whichever method it is sent to.
    const seen = new Set<string>();
    for (const [list, policies] of [
      ["policies", config.policies],
      ["solanaPolicies", config.solanaPolicies],
    ] as const)
      for (const [i, p] of policies.entries()) {
        if (seen.has(p.id))
          c.addIssue({ code: "custom", path: [list, i, "id"], message: `policy ${p.id} is listed twice` });
        seen.add(p.id);
      }
  });
export type SponsorshipConfig = z.infer<typeof sponsorshipConfigSchema>;

export const appConfigSchema = z.object({
  id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  name: z.string().min(1).max(128),
  /** Plain API keys; stored hashed. */
  apiKeys: z.array(z.string().min(16).max(256)).default([]),
  allowedOrigins: z.array(originSchema).default([]),
  emailMode: z.enum(["OTP", "MAGIC_LINK"]).default("OTP"),
  magicLinkRedirectUrls: z.array(returnUrlSchema).default([]),
  /** Passkeys: relying-party id and origins; default to the first allowed origin's host and the allowed origins. */
  webauthn: z
    .object({ rpId: z.string().min(1).optional(), origins: z.array(originSchema).optional() })
    .optional(),
  /** Social sign-in providers (OpenID Connect). */
  oauthProviders: z.array(oauthProviderConfigSchema).default([]),
  /**
   * A JWT from the app's own backend accepted in place of an API key (spec §3 "api key or jwt"): signed
   * by a key in `jwksUrl`, issued by `issuer`, for `audience` (default: the app's id), not expired.
   */
  jwt: z
    .object({
      issuer: z.string().min(1).max(512),
      jwksUrl: z.string().url(),
      audience: z.string().min(1).max(512).optional(),
    })
    .optional(),
  /** Where a redirect-mode social sign-in may return to (defaults to the magic-link URLs). */
  oauthRedirectUrls: z.array(returnUrlSchema).default([]),
  /** The language of the app's mails: sign-in codes, magic links, security notices. */
  locale: z.enum(MAIL_LOCALES).default("en"),
  /**
   * Sponsorship at /rpc/v1: gas for EVM user operations (ERC-7677 paymaster, `policies`) and fees of
   * Solana transactions (`solanaPolicies`); a client picks a policy by its id.
   */
  sponsorship: sponsorshipConfigSchema.optional(),
  /**
   * What the service signs for the app's users: rules by chain, contract, selector and value, raw-payload
   * signing, and the admin keys that approve what a rule holds (keyManagement/policies; README "Signing
   * policies"). Without one, every signature is made.
   */
  signingPolicy: signingPolicySchema.optional(),
  /** Endpoints the app's events are POSTed to, signed per Standard Webhooks (features/webhooks). */
  webhooks: webhooksConfigSchema.default([]),
});
/** An app as written in a config file (defaults may be left out). */
export type AppConfig = z.input<typeof appConfigSchema>;

/**
 * The service's Solana settings. Sponsorship works without them; with `rpcUrl` the service refuses a
 * transaction whose blockhash the node no longer knows, and one its fee payer cannot pay.
 */
export const solanaConfigSchema = z
  .object({
    /** A Solana JSON-RPC node (HTTP), e.g. https://api.devnet.solana.com. */
    rpcUrl: z.string().url(),
  })
  .strict();
export type SolanaConfig = z.infer<typeof solanaConfigSchema>;

export const rateLimitsSchema = z.object({
  windowSeconds: z.number().int().positive().default(600),
  /** Codes or links mailed to one address per window. */
  mailsPerEmail: z.number().int().positive().default(10),
  /** Codes or links mailed on behalf of one IP per window. */
  mailsPerIp: z.number().int().positive().default(100),
  /** OTP submissions from one IP per window (guards guessing across many codes). */
  otpAttemptsPerIp: z.number().int().positive().default(100),
  /** Email lookups from one IP per window. */
  lookupsPerIp: z.number().int().positive().default(300),
  /** New accounts (email or passkey sign-up) from one IP per window: each one derives a wallet. */
  signupsPerIp: z.number().int().positive().default(100),
  /** Social sign-ins started (prepare-oauth) from one IP per window. */
  oauthPreparesPerIp: z.number().int().positive().default(300),
  /** Sign-In with Ethereum nonces issued to one IP per window (each is a row until it expires). */
  siweNoncesPerIp: z.number().int().positive().default(300),
  /** SIWE messages verified for one IP per window (a contract wallet's signature costs a chain call). */
  siweVerificationsPerIp: z.number().int().positive().default(300),
  /** Wallet exports by one user per window (each needs a fresh sign-in, and mails a security notice). */
  exportsPerUser: z.number().int().positive().default(3),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;

export const fileConfigSchema = z.object({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().optional(),
  db: z.string().optional(),
  publicUrl: z.string().url().optional(),
  masterKeyFile: z.string().optional(),
  smtp: z.object({ url: z.string(), from: z.string().optional() }).optional(),
  mailFrom: z.string().optional(),
  rateLimits: rateLimitsSchema.partial().optional(),
  /** How long rows that grow with use are kept (limits/retention.ts); LATCHKEY_RETENTION_* override it. */
  retention: retentionSchema.partial().optional(),
  trustProxy: z.boolean().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  apps: z.array(appConfigSchema).default([]),
  /**
   * EVM chains for sponsorship (each app's policies name one by chainId) and Sign-In with Ethereum (when
   * any is listed, only these chains may sign in; their nodes check contract wallets' signatures).
   */
  chains: chainsSchema.default([]),
  /** Solana: the node the fee payer's transactions go to, asked whether a blockhash is still valid. */
  solana: solanaConfigSchema.optional(),
  /**
   * Wallets kept derived ahead of sign-ups, for launch-day spikes (default 0: each sign-up derives its
   * own). Refilled while the service is mostly idle; LATCHKEY_WALLET_RESERVE sets it too.
   */
  walletReserve: z.number().int().min(0).max(1_000_000).optional(),
});
export type FileConfig = z.infer<typeof fileConfigSchema>;

export function readConfigFile(path: string): FileConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`Cannot read config file ${path}: ${(e as Error).message}`);
  }
  const parsed = fileConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid config file ${path}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
