import { ErrorCode } from "@latchkey/protocol";
import { signerApi } from "@latchkey/protocol/schemas";
import { apiError } from "../../errors";
import { stampedRoute } from "../../http/route";
import { defineFeature } from "../defineFeature";
import { listAuthMethods } from "./listAuthMethods";

/** The user's ways to sign in, as the account page lists them. */
export const authMethodsFeature = defineFeature({
  name: "authMethods",
  register(app, ctx) {
    stampedRoute(app, ctx, signerApi.listAuthMethods, ({ body, caller }) => {
      if (body.suborgId !== caller.user.orgId)
        throw apiError(ErrorCode.FORBIDDEN, "suborgId is not the signed-in user's");
      return listAuthMethods(ctx, { user: caller.user });
    });
  },
});
