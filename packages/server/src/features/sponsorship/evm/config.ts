import { getAddress } from "viem";
import { z } from "zod";
import { countSchema, policyIdSchema } from "../policyFields";

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
  /** An ERC-4337 bundler for the chain: where the service sends user operations an app's backend asks for. */
  bundlerUrl: z.string().url().optional(),
  /**
   * How long the node has to simulate a signature before it is made (simulation/simulate.ts), in ms;
   * past it the preview says `timeout` and the signature is not held up (default 2000).
   */
  simulationTimeoutMs: z.number().int().min(100).max(30_000).default(2000),
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
