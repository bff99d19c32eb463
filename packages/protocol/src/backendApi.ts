import { z } from "zod";
import { grantSchema, weiStringSchema } from "./signerApi/grants";
import { stampedEndpoint } from "./stampedEndpoint";

/**
 * The backend API (`POST /backend/v1/*`): what an app's backend does for its users within the grants they
 * made (signerApi/grants.ts), authenticated by one of the app's server keys (`serverKeys`, P-256), not
 * by a user's session. Every body is stamped (`X-Stamp` over the exact bytes) and carries `type` (the
 * endpoint's, `BACKEND_<NAME>`), `appId` (the app the key belongs to) and `timestampMs` (within the
 * stamp window); each body is used once. Every signature is an activity attributed to its grant.
 */
const endpoint = stampedEndpoint("BACKEND", "/backend/v1", { appId: z.string().min(1).max(64) });

const id = z.string().min(1).max(200);
const hex = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2})*$/, "must be hex bytes (0x and an even number of digits)");
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address: 0x followed by 40 hex digits");
const signatureHex = z.string();

/** Who the signature is for, and under which of their grants. */
const underGrant = { grantId: id, userId: id };

/** What a signature answers: the signature, the activity that records it, and the address that signed. */
const signed = z.object({ signature: signatureHex, activityId: z.string(), address: z.string() });

/** Every backend API endpoint: its path, the `type` its bodies carry, its request and its answer. */
export const backendApi = {
  sign_message: endpoint(
    "sign_message",
    "/sign_message",
    "Signs an EIP-191 message (personal_sign) for the user within the grant (its `messages` must allow it).",
    {
      ...underGrant,
      message: z.union([z.string().max(16_384), z.object({ raw: hex.max(32_770) }).strict()]),
    },
    signed,
  ),
  sign_typed_data: endpoint(
    "sign_typed_data",
    "/sign_typed_data",
    "Signs EIP-712 typed data for the user within the grant: a permit is read as the approve call it " +
      "makes, a user operation as its calls; other typed data needs the grant's `typedData`.",
    {
      ...underGrant,
      typedData: z
        .object({
          domain: z.record(z.string(), z.unknown()).optional(),
          types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
          primaryType: z.string().min(1).max(64),
          message: z.record(z.string(), z.unknown()),
        })
        .strict(),
    },
    signed,
  ),
  sign_transaction: endpoint(
    "sign_transaction",
    "/sign_transaction",
    "Signs an EVM transaction (serialized unsigned, EIP-1559/2930/legacy) for the user within the grant: " +
      "its chain, target, function and value.",
    { ...underGrant, unsignedTransaction: hex.max(65_536) },
    z.object({ signedTransaction: z.string(), activityId: z.string(), address: z.string() }),
  ),
  send_user_operation: endpoint(
    "send_user_operation",
    "/send_user_operation",
    "Sends a user operation (ERC-4337, EntryPoint v0.8) from the user's smart account within the grant: " +
      "the calls are checked against it, the operation is sponsored under `policyId` when given, signed " +
      "and sent to the chain's bundler; with `waitForReceipt` the answer waits for its transaction.",
    {
      ...underGrant,
      chainId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
      calls: z
        .array(
          z
            .object({ to: address, value: weiStringSchema.optional(), data: hex.max(65_536).optional() })
            .strict(),
        )
        .min(1)
        .max(16),
      policyId: z.string().min(1).max(64).optional(),
      waitForReceipt: z.boolean().optional(),
    },
    z.object({
      userOperationHash: z.string(),
      sender: z.string(),
      activityId: z.string(),
      transactionHash: z.string().optional(),
      success: z.boolean().optional(),
    }),
  ),
  list_grants: endpoint(
    "list_grants",
    "/grants/list",
    "The grants the app's users made, newest first; those of one user with `userId`.",
    { userId: id.optional(), status: z.enum(["active", "revoked", "expired"]).optional() },
    z.object({ grants: z.array(grantSchema) }),
  ),
} as const;

export type BackendEndpointName = keyof typeof backendApi;
/** The body a backend endpoint takes (envelope included), as sent. */
export type BackendRequest<N extends BackendEndpointName> = z.output<(typeof backendApi)[N]["request"]>;
/** The body a backend endpoint takes, as a client writes it. */
export type BackendRequestInput<N extends BackendEndpointName> = z.input<(typeof backendApi)[N]["request"]>;
export type BackendResponse<N extends BackendEndpointName> = z.output<(typeof backendApi)[N]["response"]>;
