import { z } from "zod";
import { orgIdSchema, timestampMsSchema } from "../common";
import { schemaFor } from "../schemaFor";
import {
  signRawPayloadParametersSchema,
  signRawPayloadsParametersSchema,
  signTransactionParametersSchema,
} from "./activities";
import type { PreviewAction, PreviewSummary, SigningPreview } from "./previewTypes";

/**
 * What a signature does, before it is made (issue 46, "what you sign is what you see"): the service's
 * `preview_signing` query, and the preview a held activity carries for the app's admins.
 *
 * The service computes it (it holds the app's chain RPC configuration; a client could lie about what a
 * simulation said): it decodes what is signed (`@latchkey/decoder`), simulates a transaction or user
 * operation against the chain's RPC, and asks the app's signing policy, without signing or recording
 * anything.
 */

/** Languages a preview's sentences come in. */
export const previewLocaleSchema = z.enum(["en", "de", "fr", "es"]);
export type PreviewLocale = z.infer<typeof previewLocaleSchema>;

/**
 * What `preview_signing` reads: exactly one signing activity's type and the parameters that activity
 * takes. A user operation is signed as `sign_raw_payload` with PAYLOAD_ENCODING_EIP712 (its
 * PackedUserOperation typed data), so it is previewed the same way.
 */
export const previewSigningRequestSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"),
    parameters: signRawPayloadParametersSchema,
  }),
  z.object({
    type: z.literal("ACTIVITY_TYPE_SIGN_RAW_PAYLOADS"),
    parameters: signRawPayloadsParametersSchema,
  }),
  z.object({
    type: z.literal("ACTIVITY_TYPE_SIGN_TRANSACTION_V2"),
    parameters: signTransactionParametersSchema,
  }),
]);
export type PreviewSigningRequest = z.input<typeof previewSigningRequestSchema>;

// Fields are any JSON (a decoded action's shape is the decoder's): described loosely, typed exactly.
const jsonThingSchema = z.object({ kind: z.string() }).catchall(z.unknown()) as unknown as z.ZodType<
  PreviewAction,
  PreviewAction
>;

const previewSummarySchema = schemaFor<PreviewSummary>()(
  z.object({
    title: z.string(),
    lines: z.array(z.object({ text: z.string(), depth: z.number() })),
    warnings: z.array(z.string()),
  }),
);

const hexAddress = z.custom<`0x${string}`>((v) => typeof v === "string" && /^0x[0-9a-f]{40}$/.test(v));

/** {@link SigningPreview} as a schema: `preview_signing`'s answer and a held activity's `preview`. */
export const signingPreviewSchema = schemaFor<SigningPreview>()(
  z.object({
    chainId: z.number().optional(),
    kind: z.enum([
      "transaction",
      "userOperation",
      "typedData",
      "message",
      "authorization",
      "solanaTransaction",
      "raw",
    ]),
    actions: z.array(jsonThingSchema),
    warnings: z.array(jsonThingSchema),
    summary: previewSummarySchema,
    simulation: z.discriminatedUnion("status", [
      z.object({
        status: z.literal("ok"),
        reverts: z.boolean(),
        revertReason: z.string().optional(),
        balanceChanges: z.array(
          z.object({
            asset: z.union([z.literal("native"), hexAddress]),
            symbol: z.string().optional(),
            decimals: z.number().optional(),
            delta: z.string(),
          }),
        ),
        method: z.enum(["eth_simulateV1", "debug_traceCall"]).optional(),
      }),
      z.object({
        status: z.literal("unavailable"),
        reason: z.enum(["noRpc", "unsupported", "timeout", "error", "notApplicable"]),
        message: z.string().optional(),
      }),
    ]),
    policy: z.object({
      effect: z.enum(["allow", "deny", "needs_approval"]),
      ruleId: z.string().optional(),
      description: z.string().optional(),
    }),
  }),
);

/** `preview_signing`'s body (beside `type`): the organisation, the signing request and the language. */
export const previewSigningQueryFields = {
  organizationId: orgIdSchema,
  timestampMs: timestampMsSchema.optional(),
  request: previewSigningRequestSchema,
  /** The summary's language (default en). */
  locale: previewLocaleSchema.optional(),
};

export type * from "./previewTypes";
