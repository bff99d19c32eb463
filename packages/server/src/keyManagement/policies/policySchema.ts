import { z } from "zod";

/**
 * An app's signing policy, as written in the config file (`apps[].signingPolicy`): what the service
 * signs for the app's users, checked before every signature (DESIGN §9). See evaluatePolicy.ts for how
 * rules combine, and the README's "Signing policies".
 */

const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address: 0x followed by 40 hex digits")
  .transform((a) => a.toLowerCase() as `0x${string}`);

const selector = z
  .string()
  .regex(/^0x[0-9a-fA-F]{8}$/, 'must be a 4-byte selector such as "0xa9059cbb"')
  .transform((s) => s.toLowerCase());

const wei = z
  .string({ error: 'must be a decimal string of wei, e.g. "1000000000000000000"' })
  .regex(/^\d{1,78}$/, 'must be a decimal string of wei, e.g. "1000000000000000000"')
  .transform((v) => BigInt(v).toString());

export const SIGNING_POLICY_EFFECTS = ["allow", "deny", "needs_approval"] as const;
export type SigningPolicyEffect = (typeof SIGNING_POLICY_EFFECTS)[number];

/**
 * One rule: when a transaction matches every condition the rule sets (a rule without conditions matches
 * every transaction), the rule's effect applies.
 */
export const signingPolicyRuleSchema = z
  .object({
    /** Named in the refusal's message and the audit log, e.g. "no-burn". */
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, '_', '.' or '-'"),
    effect: z.enum(SIGNING_POLICY_EFFECTS),
    /** Shown to the user with a refusal, e.g. "Transfers to the burn address are not allowed". */
    description: z.string().min(1).max(200).optional(),
    /** The transaction's chain id is one of these. */
    chainIds: z.array(z.number().int().positive()).min(1).optional(),
    /** The transaction's `to` is one of these (a contract creation has no `to`, and never matches). */
    contracts: z.array(evmAddress).min(1).optional(),
    /** The first 4 bytes of the transaction's data are one of these (no data: no selector, no match). */
    selectors: z.array(selector).min(1).optional(),
    /** The transaction moves more than this many wei of the chain's native coin. */
    valueAboveWei: wei.optional(),
  })
  .strict();
export type SigningPolicyRule = z.infer<typeof signingPolicyRuleSchema>;

/** A key that may approve or reject the app's held activities: a compressed P-256 public key (hex). */
export const adminKeySchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.@ -]{1,64}$/, "must be 1-64 letters, digits, '_', '.', '@', '-' or spaces"),
    publicKey: z
      .string()
      .regex(
        /^0[23][0-9a-fA-F]{64}$/,
        "must be a compressed P-256 public key: 66 hex digits starting 02 or 03",
      )
      .transform((k) => k.toLowerCase()),
  })
  .strict();
export type AdminKey = z.infer<typeof adminKeySchema>;

export const signingPolicySchema = z
  .object({
    rules: z.array(signingPolicyRuleSchema).default([]),
    /** What happens to a transaction no rule matches. */
    default: z.enum(["allow", "deny"]).default("allow"),
    /**
     * Raw payloads (`sign_raw_payload(s)`, `/v1/sign-payload`): messages, typed data, authorizations and
     * the smart accounts' user operations are signed as hashes, which no transaction rule can read.
     */
    rawPayloads: z.enum(SIGNING_POLICY_EFFECTS).default("allow"),
    /** Who approves or rejects what a `needs_approval` rule holds (approve_activity / reject_activity). */
    adminKeys: z.array(adminKeySchema).max(32).default([]),
  })
  .strict()
  .superRefine((policy, c) => {
    const ids = new Set<string>();
    for (const [i, rule] of policy.rules.entries()) {
      if (ids.has(rule.id))
        c.addIssue({ code: "custom", path: ["rules", i, "id"], message: `rule ${rule.id} is listed twice` });
      ids.add(rule.id);
    }
    const keys = new Set<string>();
    for (const [i, key] of policy.adminKeys.entries()) {
      if (keys.has(key.publicKey))
        c.addIssue({
          code: "custom",
          path: ["adminKeys", i, "publicKey"],
          message: "this key is listed twice",
        });
      keys.add(key.publicKey);
    }
    const holds =
      policy.rawPayloads === "needs_approval" || policy.rules.some((r) => r.effect === "needs_approval");
    if (holds && policy.adminKeys.length === 0)
      c.addIssue({
        code: "custom",
        path: ["adminKeys"],
        message: "a policy that holds signatures for approval needs at least one admin key to approve them",
      });
  });
/** A signing policy as written in a config file (defaults may be left out). */
export type SigningPolicyConfig = z.input<typeof signingPolicySchema>;
export type SigningPolicy = z.output<typeof signingPolicySchema>;
