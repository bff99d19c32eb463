import { z } from "zod";
import { idSchema, textSchema } from "../common";
import { stepUpProofFields } from "../keyManagement/stepUpProof";
import { stampedRequestSchema } from "./stampedRequest";

/**
 * Permission grants: a user lets the app's backend sign for them within limits (chains, contracts,
 * functions, native value per transaction and per UTC day, limits in tokens per transaction and per
 * window, a number of operations, an expiry). The user
 * creates, lists and revokes their grants with stamped calls of their session (`/v1/grants/*`); the app's
 * backend signs under one with its server key (the backend API, `backendApi`).
 */

const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address: 0x followed by 40 hex digits")
  .transform((a) => a.toLowerCase());

const selector = z
  .string()
  .regex(/^0x[0-9a-fA-F]{8}$/, 'must be a 4-byte selector such as "0xa9059cbb"')
  .transform((s) => s.toLowerCase());

/** Wei of the chain's native coin, a decimal string (JSON numbers cannot hold 10^18 exactly). */
export const weiStringSchema = z
  .string({ error: 'must be a decimal string of wei, e.g. "1000000000000000000"' })
  .regex(/^\d{1,78}$/, 'must be a decimal string of wei, e.g. "1000000000000000000"')
  .transform((v) => BigInt(v).toString());

/** An amount of a token in its smallest unit (or of the native coin in wei), a decimal string. */
const unitsSchema = z
  .string({ error: 'must be a decimal string of the token\'s smallest unit, e.g. "10000000"' })
  .regex(/^\d{1,78}$/, 'must be a decimal string of the token\'s smallest unit, e.g. "10000000"')
  .transform((v) => BigInt(v).toString());

/**
 * The windows a token limit counts over: the last 24 hours, 7 days or 30 days (rolling: a spend stops
 * counting exactly that long after it was made), the current UTC day, or the grant's whole life (`total`).
 */
export const TOKEN_LIMIT_WINDOWS = ["24h", "7d", "30d", "day", "total"] as const;
export type TokenLimitWindow = (typeof TOKEN_LIMIT_WINDOWS)[number];
/** A rolling window's length in ms. */
export const TOKEN_WINDOW_MS = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;

/**
 * A limit on one token (its address, or "native" for the chain's coin, on one chain): at most
 * `perTransaction` in one signature, and at most `amount` per window. Counted from what a signature can
 * move: `transfer`, `transferFrom`, `approve` and `increaseAllowance` (an approval counts its whole
 * amount), EIP-2612 and DAI permits, Permit2, EIP-3009 authorizations, and each call of a user operation.
 */
export const tokenLimitSchema = z
  .object({
    chainId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    token: z.union([z.literal("native"), evmAddress], {
      error: 'must be "native" or a token\'s address (0x followed by 40 hex digits)',
    }),
    perTransaction: unitsSchema.optional(),
    windows: z
      .array(z.object({ window: z.enum(TOKEN_LIMIT_WINDOWS), amount: unitsSchema }).strict())
      .max(5)
      .default([]),
  })
  .strict()
  .refine((l) => l.perTransaction !== undefined || l.windows.length > 0, {
    message: "a token limit sets perTransaction or at least one window",
  })
  .refine((l) => new Set(l.windows.map((w) => w.window)).size === l.windows.length, {
    message: "a token limit names each window once",
  });
export type TokenLimit = z.output<typeof tokenLimitSchema>;

/** The longest a grant may last: one year. */
export const MAX_GRANT_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/**
 * What a user grants: what the app's backend may sign for them, and how much. Left out, `contracts` and
 * `selectors` allow any; `valuePerTransaction` is "0" (no native coin moved); `valuePerDay` and
 * `maxOperations` set no further cap; `messages` and `typedData` are false (only transactions and user
 * operations). `expiresAt` (ms since the epoch) is required, at most a year ahead.
 */
export const grantPermissionsSchema = z
  .object({
    /** The chains it may sign for (EIP-155 ids). */
    chainIds: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).min(1).max(16),
    /** The contracts its transactions and calls may go to. */
    contracts: z.array(evmAddress).min(1).max(32).optional(),
    /** The functions (4-byte selectors) its calls may call. */
    selectors: z.array(selector).min(1).max(32).optional(),
    /** The most native coin (wei) one transaction or user operation may move. */
    valuePerTransaction: weiStringSchema.default("0"),
    /** The most native coin (wei) it may move per UTC day. */
    valuePerDay: weiStringSchema.optional(),
    /** How many signatures it may make in all. */
    maxOperations: z.number().int().min(1).max(1_000_000).optional(),
    /** When it stops, in ms since the epoch. */
    expiresAt: z.number().int().positive().max(8_640_000_000_000_000),
    /** EIP-191 messages (personal_sign) may be signed too. */
    messages: z.boolean().default(false),
    /** EIP-712 typed data other than user operations and permits may be signed too. */
    typedData: z.boolean().default(false),
    /** What the app says the grant is for, shown to the user, e.g. "Trading bot". */
    description: textSchema(200).optional(),
    /** Limits in tokens (ERC-20, or the native coin) per transaction and per window, per chain. */
    tokenLimits: z.array(tokenLimitSchema).min(1).max(16).optional(),
  })
  .strict()
  .refine(
    (p) =>
      new Set((p.tokenLimits ?? []).map((l) => `${l.chainId}:${l.token}`)).size ===
      (p.tokenLimits ?? []).length,
    { message: "tokenLimits names each token of a chain once", path: ["tokenLimits"] },
  )
  .refine((p) => (p.tokenLimits ?? []).every((l) => p.chainIds.includes(l.chainId)), {
    message: "each token limit is on one of the grant's chainIds",
    path: ["tokenLimits"],
  });

/** A grant's permissions as a client writes them (defaults may be left out). */
export type GrantPermissionsInput = z.input<typeof grantPermissionsSchema>;

/** A grant's permissions as the service keeps and answers them (addresses and selectors lower-case). */
export interface GrantPermissions {
  chainIds: number[];
  contracts?: string[];
  selectors?: string[];
  valuePerTransaction: string;
  valuePerDay?: string;
  maxOperations?: number;
  expiresAt: number;
  messages: boolean;
  typedData: boolean;
  description?: string;
  tokenLimits?: TokenLimit[];
}

/** Whether a grant still signs: "active", "revoked" by the user, or "expired" (past `expiresAt`). */
export type GrantStatus = "active" | "revoked" | "expired";

/** One grant: what it allows, whether it still does, and what has been used of it. */
export interface Grant {
  grantId: string;
  userId: string;
  status: GrantStatus;
  permissions: GrantPermissions;
  /** Signatures made under it so far. */
  operationsUsed: number;
  /** Wei moved under it today (UTC). */
  valueUsedToday: string;
  createdAt: number;
  revokedAt: number | null;
}

/**
 * The signed operations of the grant routes (their `parameters` are inside the signed body). Creating a
 * grant lets the app's backend sign for the user while they are away, so it needs a fresh sign-in, as a
 * wallet export does (`stepUpProofFields`: the current email's `verificationToken`, or a `multiFactor`
 * code), unless the request is passkey-stamped or the session comes from a fresh sign-in.
 */
export const grantOperations = {
  OPERATION_TYPE_CREATE_GRANT: z
    .object({ permissions: grantPermissionsSchema, ...stepUpProofFields })
    .strict(),
  OPERATION_TYPE_REVOKE_GRANT: z.object({ grantId: idSchema(64) }).strict(),
} as const;
export type GrantOperationType = keyof typeof grantOperations;

export const createGrantRequestSchema = z.object({ stampedRequest: stampedRequestSchema });
export const revokeGrantRequestSchema = z.object({ stampedRequest: stampedRequestSchema });
export const listGrantsRequestSchema = z.object({ stampedRequest: stampedRequestSchema });

/** `/v1/grants/create` and `/v1/grants/revoke`: the grant as it now is. */
export interface GrantResponse {
  grant: Grant;
}
/** `/v1/grants/list`: the user's grants, newest first. */
export interface GrantsResponse {
  grants: Grant[];
}

const grantPermissionsOutput = z.object({
  chainIds: z.array(z.number()),
  contracts: z.array(z.string()).optional(),
  selectors: z.array(z.string()).optional(),
  valuePerTransaction: z.string(),
  valuePerDay: z.string().optional(),
  maxOperations: z.number().optional(),
  expiresAt: z.number(),
  messages: z.boolean(),
  typedData: z.boolean(),
  description: z.string().optional(),
  tokenLimits: z
    .array(
      z.object({
        chainId: z.number(),
        token: z.string(),
        perTransaction: z.string().optional(),
        windows: z.array(z.object({ window: z.enum(TOKEN_LIMIT_WINDOWS), amount: z.string() })),
      }),
    )
    .optional(),
});

/** A grant as answers carry it (the twin of `Grant`, for the OpenAPI document). */
export const grantSchema = z.object({
  grantId: z.string(),
  userId: z.string(),
  status: z.enum(["active", "revoked", "expired"]),
  permissions: grantPermissionsOutput,
  operationsUsed: z.number(),
  valueUsedToday: z.string(),
  createdAt: z.number(),
  revokedAt: z.number().nullable(),
});
