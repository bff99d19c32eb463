import type { SigningPolicy, SigningPolicyRule } from "./policySchema";

/** What the service is asked to sign, as a policy sees it. */
export type SigningRequest =
  | {
      kind: "transaction";
      /** Undefined for a legacy transaction without EIP-155 replay protection (valid on every chain). */
      chainId: number | undefined;
      /** Lower-case; null for a contract creation. */
      to: `0x${string}` | null;
      /** The call data (0x for none). */
      data: `0x${string}`;
      value: bigint;
    }
  | { kind: "rawPayload" };

/** The policy's answer: sign now, refuse (REJECTED), or hold until an app admin decides (CONSENSUS_NEEDED). */
export type PolicyDecision =
  | { effect: "allow"; ruleId?: string }
  | { effect: "deny" | "needs_approval"; ruleId: string; message: string };

/** The rule id a decision names when no rule matched and the policy's `default` (or `rawPayloads`) decided. */
export const DEFAULT_RULE_ID = "default";
export const RAW_PAYLOADS_RULE_ID = "rawPayloads";

/**
 * Decides a signature under an app's signing policy (none: everything is allowed). Every rule that
 * matches the transaction is considered, and the strictest effect wins: `deny` beats `needs_approval`,
 * which beats `allow`; when no rule matches, `default` decides. So an allow rule never lifts a deny rule,
 * whatever their order. Raw payloads are decided by `rawPayloads` alone: a hash shows no chain, target or
 * value.
 *
 * A transaction without a chain id (legacy, before EIP-155) can be sent on any chain: it matches the
 * `chainIds` of every deny and needs_approval rule, and of no allow rule.
 *
 * @example
 * evaluatePolicy(policy, { kind: "transaction", chainId: 1, to, data: "0x", value: 10n ** 18n });
 * // → { effect: "deny", ruleId: "cap", message: 'Refused by signing policy rule "cap": …' }
 */
export function evaluatePolicy(policy: SigningPolicy | undefined, request: SigningRequest): PolicyDecision {
  if (!policy) return { effect: "allow" };
  if (request.kind === "rawPayload") {
    if (policy.rawPayloads === "allow") return { effect: "allow" };
    return {
      effect: policy.rawPayloads,
      ruleId: RAW_PAYLOADS_RULE_ID,
      message:
        policy.rawPayloads === "deny"
          ? "Refused by the signing policy: this app does not sign raw payloads (messages, typed data, hashes)"
          : "Held by the signing policy: this app's raw-payload signatures wait for an app admin's approval",
    };
  }
  const matching = policy.rules.filter((rule) => matches(rule, request));
  const deny = matching.find((r) => r.effect === "deny");
  if (deny) return { effect: "deny", ruleId: deny.id, message: refusal(deny) };
  const held = matching.find((r) => r.effect === "needs_approval");
  if (held)
    return {
      effect: "needs_approval",
      ruleId: held.id,
      message: `Held by signing policy rule "${held.id}" until an app admin approves it${
        held.description ? `: ${held.description}` : ""
      }`,
    };
  const allow = matching.find((r) => r.effect === "allow");
  if (allow) return { effect: "allow", ruleId: allow.id };
  if (policy.default === "allow") return { effect: "allow" };
  return {
    effect: "deny",
    ruleId: DEFAULT_RULE_ID,
    message: "Refused by the signing policy: no rule allows this transaction",
  };
}

function refusal(rule: SigningPolicyRule): string {
  return `Refused by signing policy rule "${rule.id}"${rule.description ? `: ${rule.description}` : ""}`;
}

function matches(rule: SigningPolicyRule, tx: Extract<SigningRequest, { kind: "transaction" }>): boolean {
  if (rule.chainIds) {
    if (tx.chainId === undefined) {
      if (rule.effect === "allow") return false;
    } else if (!rule.chainIds.includes(tx.chainId)) return false;
  }
  if (rule.contracts && (tx.to === null || !rule.contracts.includes(tx.to))) return false;
  if (rule.selectors) {
    const data = tx.data.toLowerCase();
    if (data.length < 10 || !rule.selectors.includes(data.slice(0, 10))) return false;
  }
  if (rule.valueAboveWei !== undefined && !(tx.value > BigInt(rule.valueAboveWei))) return false;
  return true;
}
