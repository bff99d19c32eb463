import {
  type Activity,
  ErrorCode,
  type SignPayloadResponse,
  type SignRawPayloadResult,
} from "@latchkey/protocol";
import { apiError } from "../../errors";
import { assertJsonDepth } from "../../http/jsonDepth";
import { type ActivityContext, defineActivity } from "../defineActivity";
import { isStructuredEncoding, payloadSigningRequest } from "../policies/structuredPayloads";
import { findSigningAccount, signOne, withSigningKey } from "../signing";

/**
 * `sign_raw_payload`: one signature with one of the organisation's accounts. Typed data, an
 * authorization or a message (their own encodings) reach the policy parsed; a bare digest is a raw
 * payload.
 */
export const signRawPayload = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  signingRequest: ({ params }) => {
    // A JSON payload (typed data, an authorization) is bounded before the policy parses and hashes it.
    if (isStructuredEncoding(params.encoding)) assertJsonDepth(params.payload, "payload");
    return payloadSigningRequest(params);
  },
  pure: (ctx, { caller, params, share }) =>
    withSigningKey(ctx, { orgId: caller.user.orgId, signWith: params.signWith, share }, (curve, key) =>
      signOne(curve, key, params),
    ),
});

/** What a completed sign_raw_payload records: its result and the account it signed with. */
interface SignRawPayloadRecord {
  result: { signRawPayloadResult?: SignRawPayloadResult };
  intent: { signRawPayloadIntentV2?: { signWith?: string } };
}

/**
 * The signer API's answer for a completed sign_raw_payload (`/v1/sign-payload`): one hex signature
 * r‖s‖v. The account's curve says how v is written: 27/28 for a secp256k1 account (as EVM wallets
 * answer), and 00 after an ed25519 account's 64-byte signature.
 */
export async function signPayloadAnswer(
  ctx: Pick<ActivityContext, "db" | "caches">,
  params: { orgId: string; activity: Activity },
): Promise<SignPayloadResponse> {
  const { result, intent } = params.activity as Activity & SignRawPayloadRecord;
  const signature = result.signRawPayloadResult;
  const signWith = intent.signRawPayloadIntentV2?.signWith;
  if (!signature || !signWith) throw apiError(ErrorCode.INTERNAL, "Signing produced no result");
  const { curve } = await findSigningAccount(ctx, { orgId: params.orgId, signWith });
  const v = curve === "CURVE_SECP256K1" ? (27 + Number.parseInt(signature.v, 16)).toString(16) : "00";
  return { signature: `0x${signature.r}${signature.s}${v}` };
}
