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
  /** Typed data for a chain the grant does not name, or for no chain. */
  chain: "grant.chainIds",
} as const;

/**
 * A grant as a signing policy (keyManagement/policies), evaluated for every signature made under it:
 * calls (a transaction, each call of a user operation, a permit's approval, and the calls the user's own
 * accounts run for them: callsOf.ts) are allowed on the grant's chains, to its contracts and functions,
 * up to its value per transaction (the sum of the calls' values); nothing else is (default deny), nor a
 * call to the user's own account whose effect cannot be read. Messages and other typed data follow the grant's `messages` and `typedData`; bare digests,
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
 * primary types): typed data whose domain names no chain is valid on every chain, and refused.
 */
export function decideUnderGrant(p: GrantPermissions, request: SigningRequest): PolicyDecision {
  if (request.kind === "typedData" && !(request.chainId && p.chainIds.includes(request.chainId)))
    return {
      effect: "deny",
      ruleId: GRANT_RULES.chain,
      message:
        request.chainId === undefined
          ? "The grant does not cover typed data whose domain names no chain (valid on every chain)"
          : `The grant does not cover chain ${request.chainId}`,
    };
  return evaluatePolicy(grantPolicy(p), request);
}

/**
 * The native coin a signature moves: the sum of the values of the calls it can make (callsOf.ts), so a
 * call through the user's own account counts what that account sends.
 */
export { nativeValueOf } from "../../keyManagement/policies/callsOf";

/** The chain a signature is for, when it says. */
export function chainOf(request: SigningRequest): number | undefined {
  return "chainId" in request ? request.chainId : undefined;
}
