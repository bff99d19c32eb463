import type { GrantPermissions } from "@latchkey/protocol";
import {
  evaluatePolicy,
  type PolicyDecision,
  type SigningRequest,
} from "../../keyManagement/policies/evaluatePolicy";
import { type SigningPolicy, signingPolicySchema } from "../../keyManagement/policies/policySchema";

/** The rule ids a grant's policy names in its refusals (`data.ruleId`). */
export const GRANT_RULES = {
  /** A call moves more native coin than `valuePerTransaction`. */
  value: "grant.valuePerTransaction",
  /** The chains, contracts and functions the grant allows. */
  scope: "grant.scope",
  /** Typed data for a chain the grant does not name. */
  chain: "grant.chainIds",
} as const;

/**
 * A grant as a signing policy (keyManagement/policies), evaluated for every signature made under it:
 * calls (a transaction, each call of a user operation, a permit's approval) are allowed on the grant's
 * chains, to its contracts and functions, up to its value per transaction; nothing else is (default
 * deny). Messages and other typed data follow the grant's `messages` and `typedData`; bare digests,
 * Solana payloads and EIP-7702 delegations are never signed under a grant.
 */
export function grantPolicy(p: GrantPermissions): SigningPolicy {
  return signingPolicySchema.parse({
    rules: [
      { id: GRANT_RULES.value, effect: "deny", valueAboveWei: p.valuePerTransaction },
      {
        id: GRANT_RULES.scope,
        effect: "allow",
        chainIds: p.chainIds,
        ...(p.contracts ? { contracts: p.contracts } : {}),
        ...(p.selectors ? { selectors: p.selectors } : {}),
      },
    ],
    default: "deny",
    messages: p.messages ? "allow" : "deny",
    typedData: p.typedData ? "allow" : "deny",
    rawPayloads: "deny",
    solanaPayloads: "deny",
    authorizationDelegates: [],
  });
}

/**
 * What the grant says of one signature: the policy engine's decision, where typed data must also be for
 * one of the grant's chains (the engine reads a typed-data domain's chain only in rules that name
 * primary types).
 */
export function decideUnderGrant(p: GrantPermissions, request: SigningRequest): PolicyDecision {
  if (request.kind === "typedData" && request.chainId !== undefined && !p.chainIds.includes(request.chainId))
    return {
      effect: "deny",
      ruleId: GRANT_RULES.chain,
      message: `The grant does not cover chain ${request.chainId}`,
    };
  return evaluatePolicy(grantPolicy(p), request);
}

/** The native coin a signature moves: a transaction's value, or the sum of a user operation's calls. */
export function nativeValueOf(request: SigningRequest): bigint {
  if (request.kind === "transaction") return request.value;
  if (request.kind === "userOperation") return request.calls.reduce((sum, c) => sum + c.value, 0n);
  if (request.kind === "several") return request.requests.reduce((sum, r) => sum + nativeValueOf(r), 0n);
  return 0n;
}

/** The chain a signature is for, when it says. */
export function chainOf(request: SigningRequest): number | undefined {
  return "chainId" in request ? request.chainId : undefined;
}
