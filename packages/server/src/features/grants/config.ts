import { z } from "zod";

/**
 * An app's server key: a P-256 key its backend stamps backend-API requests with (`latchkey server-key
 * create` makes one), named for the logs and the audit trail. The public key is compressed, in hex.
 */
export const serverKeySchema = z
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
