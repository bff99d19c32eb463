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
  /**
   * Split custody (docs/split-custody.md §2): the user's share, sealed to the service's share key for
   * this exact `body` (`sealUserShare` of `@latchkey/protocol/custody`), as the `X-User-Share` header
   * carries it on the key-management API. Needed by every request that signs with a split wallet, and
   * by create_split_wallet.
   */
  userShare: z.string().min(1).max(4096).optional(),
  /**
   * Enforced confirmations (issue 46): the auth frame's confirmation of this exact `body`, as the
   * `X-Confirmation` header carries it on the key-management API (`v1.<confirmedAtMs>.<signature hex>`).
   */
  confirmation: z.string().min(1).max(512).optional(),
});
/** A key-management request signed by the session key, carried by a signer-API call. */
export type StampedRequest = z.infer<typeof stampedRequestSchema>;

export const stampedRequestBodySchema = z.object({ stampedRequest: stampedRequestSchema });
