import { tokenLimitSchema } from "@latchkey/protocol/schemas";
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

const units = z
  .string({ error: 'must be a decimal string of the asset\'s smallest unit, e.g. "1000000"' })
  .regex(/^\d{1,78}$/, 'must be a decimal string of the asset\'s smallest unit, e.g. "1000000"')
  .transform((v) => BigInt(v).toString());
const addressList = z.array(evmAddress).min(1, "must list at least one address").max(256);
/** "native" (the chain's coin, in wei) or an ERC-20 token's address. */
const asset = z.union([z.literal("native"), evmAddress], {
  error: 'must be "native" or a token\'s address (0x followed by 40 hex digits)',
});

/**
 * What a call's decoded arguments must be for a rule to match it (the call data read as the token
 * standards write it: `transfer`, `transferFrom`, `safeTransferFrom`, `approve`, `increaseAllowance`,
 * `setApprovalForAll`, and native value). Every condition set must hold:
 * - recipientIn / recipientNotIn: the call sends native value or tokens to an address in / not in the list;
 * - amountAbove: the call sends more than `amount` of `token` ("native": wei; a token: its smallest unit);
 * - spenderIn / spenderNotIn: the call approves a spender (or operator) in / not in the list;
 * - delegateIn / delegateNotIn: the signature delegates the account (EIP-7702) to an address in / not in the list.
 */
export const ruleArgsSchema = z
  .object({
    recipientIn: addressList.optional(),
    recipientNotIn: addressList.optional(),
    amountAbove: z.object({ token: asset, amount: units }).strict().optional(),
    spenderIn: addressList.optional(),
    spenderNotIn: addressList.optional(),
    delegateIn: addressList.optional(),
    delegateNotIn: addressList.optional(),
  })
  .strict()
  .refine((a) => Object.values(a).some((v) => v !== undefined), {
    message:
      "args must set at least one of recipientIn, recipientNotIn, amountAbove, spenderIn, spenderNotIn, delegateIn, delegateNotIn",
  });
export type RuleArgs = z.infer<typeof ruleArgsSchema>;

/**
 * What `confirmation.required` may name: EVM transactions, user operations, other typed data (permits),
 * EIP-7702 authorizations, EIP-191 messages, bare digests (EVM) and Solana payloads.
 */
export const CONFIRMATION_KINDS = [
  "transaction",
  "userOperation",
  "typedData",
  "authorization",
  "message",
  "rawPayload",
  "solanaPayload",
] as const;
export type ConfirmationKind = (typeof CONFIRMATION_KINDS)[number];

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
    /**
     * The call moves more than this many wei of the chain's native coin. A deny or needs_approval rule
     * also matches when the calls of one signature that meet its other conditions move more together
     * (a batch, calls through the user's own accounts: callsOf.ts).
     */
    valueAboveWei: wei.optional(),
    /**
     * Typed data (EIP-712) whose primary type is one of these, e.g. ["Permit", "PermitSingle"]. A rule
     * that sets it matches typed data only; typed data that is neither a user operation nor a permit is
     * matched only by such rules.
     */
    primaryTypes: z
      .array(z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/, "must be an EIP-712 type name"))
      .min(1)
      .optional(),
    /** An approval (an ERC-20 `approve` call, or a permit) to one of these spenders. */
    spenders: z.array(evmAddress).min(1).optional(),
    /** An approval (`approve` or a permit) of more than this amount, in the token's smallest unit. */
    amountAbove: z
      .string({ error: 'must be a decimal string of the token\'s smallest unit, e.g. "1000000"' })
      .regex(/^\d{1,78}$/, 'must be a decimal string of the token\'s smallest unit, e.g. "1000000"')
      .transform((v) => BigInt(v).toString())
      .optional(),
    /** What a call's decoded arguments must be (recipient, amount, spender, delegate): RuleArgs. */
    args: ruleArgsSchema.optional(),
    /**
     * The signature's simulation (simulation/simulate.ts) shows the signer losing more than `amount` of
     * `asset` ("native": wei; a token: its smallest unit). Decided on the service before signing; when
     * no simulation can be had (no RPC, a timeout, a node without simulation), a deny rule refuses and a
     * needs_approval rule holds: it fails closed, naming the rule. An allow rule then does not apply.
     */
    netOutflowAbove: z.object({ asset, amount: units }).strict().optional(),
  })
  .strict();
export type SigningPolicyRule = z.infer<typeof signingPolicyRuleSchema>;

/**
 * A named P-256 key in an app's config: `name` for the logs and the audit trail, `publicKey` compressed, in
 * hex (kept lower-case). Admin keys and server keys (features/grants/config.ts) both have this shape.
 */
export const namedP256KeySchema = z
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

/** A key that may approve or reject the app's held activities: a compressed P-256 public key (hex). */
export const adminKeySchema = namedP256KeySchema;
export type AdminKey = z.infer<typeof adminKeySchema>;

/**
 * Simple7702Account (eth-infinitism @account-abstraction/contracts v0.8): its artifact deployed through
 * the CREATE2 deployer 0x4e59b448… with salt 0 lands here, on every chain (checked in
 * evaluatePolicy.test.ts). The only EIP-7702 delegate signed unless `authorizationDelegates` says otherwise.
 */
export const SIMPLE_7702_ACCOUNT = "0xe6cae83bde06e4c305530e199d7217f42808555b";

const signingPolicyObject = z
  .object({
    rules: z.array(signingPolicyRuleSchema).default([]),
    /** What happens to a transaction (or a user operation's call, or a permit) no rule matches. */
    default: z.enum(["allow", "deny"]).default("allow"),
    /**
     * Bare digests (`PAYLOAD_ENCODING_HEXADECIMAL`/`TEXT_UTF8` on an EVM account): nothing any rule can
     * read. Left out: `allow` for an app without transaction rules, else `needs_approval` if the app has
     * admin keys, else `deny` (rawPayloadsEffect).
     */
    rawPayloads: z.enum(SIGNING_POLICY_EFFECTS).optional(),
    /** EIP-191 messages (`PAYLOAD_ENCODING_EIP191_MESSAGE`, personal_sign): no rule describes them. */
    messages: z.enum(SIGNING_POLICY_EFFECTS).default("allow"),
    /**
     * Typed data no rule matches that is neither a user operation nor a permit (those are calls). Left
     * out: what `default` says, so an allow-list app signs only the typed data its rules name.
     */
    typedData: z.enum(SIGNING_POLICY_EFFECTS).optional(),
    /**
     * EIP-7702 delegates the app's users may authorize (an authorization, or one in a type-4
     * transaction); every other is refused, whatever `rawPayloads` says. The zero address (undoing a
     * delegation) is always allowed.
     */
    authorizationDelegates: z.array(evmAddress).max(64).default([SIMPLE_7702_ACCOUNT]),
    /**
     * Payloads for a Solana (ed25519) account, which EVM rules do not describe. Left out: what an
     * explicit `rawPayloads` says, else `allow`.
     */
    solanaPayloads: z.enum(SIGNING_POLICY_EFFECTS).optional(),
    /**
     * Keys that approve or reject what a `needs_approval` rule holds (approve_activity / reject_activity),
     * besides the app's console admins.
     */
    adminKeys: z.array(adminKeySchema).max(32).default([]),
    /**
     * How many distinct admins (admin keys and console admins, each counted once) must approve a held
     * signature before it is made; left out: 1. A reject by any one admin refuses it. Read as
     * `approvals?.required ?? 1` (policies stored before it have none).
     */
    approvals: z
      .object({ required: z.number().int().min(1, "approvals.required is at least 1").max(16) })
      .strict()
      .optional(),
    /**
     * Limits in tokens for each of the app's users (policyTokenLimits.ts): per token (an address or
     * "native", on a chain), at most `perTransaction` in one signature and `amount` per window (`24h`,
     * `7d`, `30d` rolling, the UTC `day`, or `total`), counted from what the signature can move; a call
     * on a limited token they cannot count is refused.
     */
    tokenLimits: z
      .array(
        tokenLimitSchema.refine((l) => l.windows.every((w) => w.window !== "total"), {
          message: 'a signing policy\'s token limit counts per "24h", "7d", "30d" or "day", not "total"',
        }),
      )
      .min(1)
      .max(32)
      .optional(),
    /**
     * Enforced confirmations (issue 46, keyManagement/confirmation): the signatures the user must confirm
     * in the service's auth frame, which draws the request and signs a confirmation of its exact body
     * with a key the host page cannot use. `required: true` is every kind; a list names some. A signature
     * without the frame's confirmation is refused (403 CONFIRMATION_REQUIRED) before anything is signed.
     */
    confirmation: z
      .object({
        required: z.union([z.literal(true), z.array(z.enum(CONFIRMATION_KINDS)).min(1)]),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * What a bare digest gets: what `rawPayloads` says, or when it is left out, `allow` for an app without
 * transaction rules; an app with some (any rule, or `default: "deny"`) must not sign what its rules
 * cannot read, so it holds them for its admins, or refuses them when it has none.
 */
export function rawPayloadsEffect(policy: {
  rawPayloads?: SigningPolicyEffect | undefined;
  rules: unknown[];
  default: "allow" | "deny";
  adminKeys: unknown[];
}): SigningPolicyEffect {
  if (policy.rawPayloads) return policy.rawPayloads;
  if (policy.rules.length === 0 && policy.default === "allow") return "allow";
  return policy.adminKeys.length > 0 ? "needs_approval" : "deny";
}

/**
 * The policy with `rawPayloads`, `typedData` and `solanaPayloads` resolved (parsing its output again
 * changes nothing).
 */
export const signingPolicySchema = signingPolicyObject
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
  })
  .transform((policy) => ({
    ...policy,
    rawPayloads: rawPayloadsEffect(policy),
    typedData: policy.typedData ?? policy.default,
    solanaPayloads: policy.solanaPayloads ?? policy.rawPayloads ?? "allow",
  }));
/**
 * Whether a policy can hold a signature for approval (some rule or setting says `needs_approval`). Its
 * app's admin keys or console admins approve; `latchkey serve` warns about an app that has neither.
 */
export function holdsForApproval(policy: SigningPolicy): boolean {
  return (
    [policy.rawPayloads, policy.messages, policy.typedData, policy.solanaPayloads].includes(
      "needs_approval",
    ) || policy.rules.some((r) => r.effect === "needs_approval")
  );
}

/** A signing policy as written in a config file (defaults may be left out). */
export type SigningPolicyConfig = z.input<typeof signingPolicySchema>;
export type SigningPolicy = z.output<typeof signingPolicySchema>;
