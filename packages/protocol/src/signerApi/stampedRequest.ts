import { z } from "zod";
import { idSchema, textSchema } from "../common";

export const stampSchema = z.object({
  stampHeaderName: idSchema(64),
  stampHeaderValue: idSchema(8192),
});

/** A key-management request signed by a session key (or passkey), executed in-process by a signer endpoint. */
export const stampedRequestSchema = z.object({
  body: z
    .string()
    .min(2)
    .max(32 * 1024),
  stamp: stampSchema,
  url: textSchema(2048).pipe(z.string().min(1)),
});
/** A key-management request signed by the session key, carried by a signer-API call. */
export type StampedRequest = z.infer<typeof stampedRequestSchema>;

export const stampedRequestBodySchema = z.object({ stampedRequest: stampedRequestSchema });
