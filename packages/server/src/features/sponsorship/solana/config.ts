import { isAddress as isSolanaAddress } from "@solana/kit";
import { z } from "zod";
import { countSchema, policyIdSchema } from "../policyFields";

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
