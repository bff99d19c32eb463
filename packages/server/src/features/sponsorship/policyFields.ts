import { z } from "zod";

// Fields the EVM and the Solana sponsorship policies share (evm/config.ts, solana/config.ts).

/** A policy's id, what a client passes as its `policyId`: one namespace across an app's EVM and Solana policies. */
export const policyIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, '_', '.' or '-'");

/** A count in a policy's limits. */
export const countSchema = z.number().int("must be a whole number").positive("must be at least 1");
