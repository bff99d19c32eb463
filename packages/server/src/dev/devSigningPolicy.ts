import type { SigningPolicyConfig } from "../keyManagement/policies/policySchema";

/** The address the dev app's signing policy refuses to send to (the demo's "stopped" transaction). */
export const DEV_BLOCKED_ADDRESS = "0x000000000000000000000000000000000000dEaD";
/** The rule of the dev app's policy that stops it, as the refusal names it. */
export const DEV_POLICY_RULE_ID = "dev-no-burn";

/**
 * The dev app's signing policy (dev only): every signature is made, except a transaction to the burn
 * address, which the service refuses (REJECTED). The demo's "Signing policy" card shows both.
 */
export const DEV_SIGNING_POLICY = {
  rules: [
    {
      id: DEV_POLICY_RULE_ID,
      effect: "deny",
      contracts: [DEV_BLOCKED_ADDRESS],
      description: "the dev app's policy sends nothing to the burn address",
    },
  ],
  default: "allow",
  // Said, not defaulted: with a rule, bare hashes would be refused (no admin keys), and the dev app's
  // users try `signRawMessage` too. Messages, typed data and user operations are read whatever this says.
  rawPayloads: "allow",
} satisfies SigningPolicyConfig;
