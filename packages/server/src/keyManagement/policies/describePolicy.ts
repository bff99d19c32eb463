import { rawPayloadsEffect, SIMPLE_7702_ACCOUNT, type SigningPolicy } from "./policySchema";

/**
 * The start-up line for an app's signing policy: what it does with bare hashes (raw payloads), which no
 * rule can read, and which EIP-7702 delegates it signs authorizations for.
 *
 * @example
 * describeSigningPolicy("shop", policy);
 * // → 'Signing policy of app shop: 2 rules (default allow); bare hashes (raw payloads): deny (the default
 * //    for an app with transaction rules and no admin keys; set rawPayloads to choose); EIP-7702 delegates:
 * //    Simple7702Account'
 */
export function describeSigningPolicy(appId: string, policy: SigningPolicy): string {
  const effect = rawPayloadsEffect({ ...policy, rawPayloads: undefined });
  const why =
    effect === "allow"
      ? "the default for an app without transaction rules"
      : `the default for an app with transaction rules and ${policy.adminKeys.length ? "admin keys" : "no admin keys"}`;
  const raw = `${policy.rawPayloads}${policy.rawPayloads === effect ? ` (${why}; set rawPayloads to choose)` : ""}`;
  const delegates = policy.authorizationDelegates
    .map((d) => (d === SIMPLE_7702_ACCOUNT ? "Simple7702Account" : d))
    .join(", ");
  const rules = `${policy.rules.length} rule${policy.rules.length === 1 ? "" : "s"} (default ${policy.default})`;
  return `Signing policy of app ${appId}: ${rules}; bare hashes (raw payloads): ${raw}; EIP-7702 delegates: ${delegates || "none"}`;
}
