import { passkeySignupRequestSchema, signerApi } from "@latchkey/protocol/schemas";
import { perIpLimit } from "../../http/perIpLimit";
import { routeShape } from "../../http/route";
import { defineFeature } from "../defineFeature";
import { signupWithPasskey } from "./signupWithPasskey";

/**
 * Sign-up by passkey: a `/v1/signup` body that carries a passkey (the email feature serves the others).
 * Adding and removing a passkey later are key-management activities (createAuthenticators,
 * deleteAuthenticators); a passkey's stamp is checked by auth/stamps/verifyPasskeyStamp.ts.
 */
export const passkeysFeature = defineFeature({
  name: "passkeys",
  register(app, ctx) {
    routeShape(
      app,
      signerApi.signup,
      { is: (body) => "passkey" in body && body.passkey !== undefined, schema: passkeySignupRequestSchema },
      async ({ body, app, ip }) => {
        await perIpLimit(ctx, "signup", ip);
        return signupWithPasskey(ctx, { app, request: body, ip });
      },
    );
  },
});
