import { previewSigningRequest } from "../../simulation/preview";
import { activities } from "../activities";
import type { SigningRequest } from "../policies/evaluatePolicy";
import { findSigningAccount } from "../signing";
import { defineQuery } from "./defineQuery";

/**
 * `preview_signing`: what a signature would do, for the user's own account: decoded, simulated on the
 * chain's node and asked of the app's signing policy (simulation/preview.ts). Signs and records nothing.
 */
export const previewSigning = defineQuery({
  name: "preview_signing",
  async run(ctx, { caller, body }) {
    // The account must be the user's (404 ACCOUNT_NOT_FOUND otherwise), as a signature's would.
    await findSigningAccount(ctx, { orgId: caller.user.orgId, signWith: body.request.parameters.signWith });
    const handler = activities[body.request.type] as { signingRequest?: (input: unknown) => SigningRequest };
    const preview = await previewSigningRequest(ctx, {
      appId: caller.user.appId,
      request: body.request,
      ...(handler.signingRequest
        ? { signingRequest: handler.signingRequest({ caller, params: body.request.parameters }) }
        : {}),
      ...(body.locale ? { locale: body.locale } : {}),
    });
    return { preview };
  },
});
