import { z } from "zod";
import { sponsorshipPolicySchema } from "./evm/config";
import { solanaSponsorshipPolicySchema } from "./solana/config";

/** An app's sponsorship (`apps[].sponsorship`): its EVM paymaster policies and its Solana fee payer policies. */
export const sponsorshipConfigSchema = z
  .object({
    /** ERC-7677 paymaster policies (EVM user operations). */
    policies: z.array(sponsorshipPolicySchema).default([]),
    /** Solana fee payer policies (`latchkey_requestFeePayer`). */
    solanaPolicies: z.array(solanaSponsorshipPolicySchema).default([]),
  })
  .superRefine((config, c) => {
    // One namespace: a client's policyId names one policy, whichever method it is sent to.
    const seen = new Set<string>();
    for (const [list, policies] of [
      ["policies", config.policies],
      ["solanaPolicies", config.solanaPolicies],
    ] as const)
      for (const [i, p] of policies.entries()) {
        if (seen.has(p.id))
          c.addIssue({ code: "custom", path: [list, i, "id"], message: `policy ${p.id} is listed twice` });
        seen.add(p.id);
      }
  });
export type SponsorshipConfig = z.infer<typeof sponsorshipConfigSchema>;
