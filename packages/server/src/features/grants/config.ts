import { z } from "zod";
import { namedP256KeySchema } from "../../keyManagement/policies/policySchema";

/**
 * An app's server key: a P-256 key its backend stamps backend-API requests with (`latchkey server-key
 * create` makes one), named for the logs and the audit trail. The public key is compressed, in hex.
 */
export const serverKeySchema = namedP256KeySchema;
export type ServerKey = z.infer<typeof serverKeySchema>;

/** `apps[].serverKeys`: the keys that may call the backend API for the app (none: no backend signing). */
export const serverKeysSchema = z
  .array(serverKeySchema)
  .max(32)
  .superRefine((keys, c) => {
    const seen = new Set<string>();
    for (const [i, key] of keys.entries()) {
      if (seen.has(key.publicKey))
        c.addIssue({ code: "custom", path: [i, "publicKey"], message: "this key is listed twice" });
      seen.add(key.publicKey);
    }
  })
  .default([]);
