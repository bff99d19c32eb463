import { ErrorCode, type SignPayloadResponse } from "@latchkey/protocol";
import { signerApi } from "@latchkey/protocol/schemas";
import { apiError } from "../../errors";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { submitActivity } from "../../keyManagement/submitActivity";
import { defineFeature } from "../defineFeature";

/** `/v1/sign-payload`: a stamped sign_raw_payload, answered as one hex signature r‖s‖v. */
export const signingFeature = defineFeature({
  name: "signing",
  register(app, ctx) {
    app.post(`/signer${signerApi.signPayload.path}`, async (req): Promise<SignPayloadResponse> => {
      const { caller, raw } = await unwrapStampedRequest(ctx, req, signerApi.signPayload);
      const { activity } = await submitActivity(ctx, { path: "sign_raw_payload", rawBody: raw, caller });
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
