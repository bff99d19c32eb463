import { ErrorCode, type SignPayloadResponse } from "@latchkey/protocol";
import { signerApi } from "@latchkey/protocol/schemas";
import { apiError } from "../../errors";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { submitActivity } from "../../keyManagement/submitActivity";
import { defineFeature } from "../defineFeature";

/**
 * `/v1/sign-payload`: a stamped sign_raw_payload, answered as one hex signature r‖s‖v; a signature the
 * app's signing policy refuses answers 403 POLICY_DENIED, one it holds for an admin 409
 * ACTIVITY_CONSENSUS_NEEDED (both with `data.activityId`).
 */
export const signingFeature = defineFeature({
  name: "signing",
  register(app, ctx) {
    app.post(`/signer${signerApi.signPayload.path}`, async (req): Promise<SignPayloadResponse> => {
      const { caller, raw } = await unwrapStampedRequest(ctx, req, signerApi.signPayload);
      const { activity } = await submitActivity(ctx, { path: "sign_raw_payload", rawBody: raw, caller });
      // The app's signing policy refused it, or holds it for an admin: a stable 4xx naming the activity.
      const data = { activityId: activity.id, activityStatus: activity.status };
      if (activity.status === "ACTIVITY_STATUS_REJECTED")
        throw apiError(
          ErrorCode.POLICY_DENIED,
          activity.failure?.message ?? "Refused by the signing policy",
          { data },
        );
      if (activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED")
        throw apiError(
          ErrorCode.ACTIVITY_CONSENSUS_NEEDED,
          activity.failure?.message ?? "Held by the signing policy until an app admin approves it",
          { data },
        );
      if (activity.status !== "ACTIVITY_STATUS_COMPLETED")
        throw apiError(
          ErrorCode.ACTIVITY_NOT_PENDING,
          activity.failure?.message ?? `The activity is ${activity.status}`,
          {
            data,
          },
        );
      const result = (activity.result as { signRawPayloadResult?: { r: string; s: string; v: string } })
        .signRawPayloadResult;
      if (!result) throw apiError(ErrorCode.INTERNAL, "Signing produced no result");
      // EVM answers carry v as 27/28; ed25519 answers keep v = 00 after the 64-byte signature. Base58 has
      // no "0", so only an EVM address starts with 0x.
      const intent = (activity.intent as { signRawPayloadIntentV2?: { signWith?: string } })
        .signRawPayloadIntentV2;
      const isEvm = intent?.signWith?.startsWith("0x") ?? false;
      const v = isEvm ? (27 + Number.parseInt(result.v, 16)).toString(16) : "00";
      return { signature: `0x${result.r}${result.s}${v}` };
    });
  },
});
