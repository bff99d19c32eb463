import { ErrorCode } from "@latchkey/protocol";
import { signerApi } from "@latchkey/protocol/schemas";
import { listAuthMethods } from "../../authMethods/listAuthMethods";
import { apiError } from "../../errors";
import { parseOrThrow } from "../../http/parse";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { defineFeature } from "../defineFeature";

/** The user's ways to sign in, as the account page lists them. */
export const authMethodsFeature = defineFeature({
  name: "authMethods",
  register(app, ctx) {
    app.post(`/signer${signerApi.listAuthMethods.path}`, async (req) => {
      const { suborgId } = parseOrThrow(signerApi.listAuthMethods.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.listAuthMethods);
      if (suborgId !== caller.user.orgId)
        throw apiError(ErrorCode.FORBIDDEN, "suborgId is not the signed-in user's");
      return listAuthMethods(ctx, { user: caller.user });
    });
  },
});
