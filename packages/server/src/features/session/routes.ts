import { signerApi } from "@latchkey/protocol/schemas";
import { appOf } from "../../http/plugins/appApiKey";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { smartAccountKindOf } from "../../users/smartAccountKind";
import { userAddresses } from "../../users/userStore";
import { defineFeature } from "../defineFeature";

/** The app's signer config, and who is signed in (session or passkey). */
export const sessionFeature = defineFeature({
  name: "session",
  register(app, ctx) {
    // rootOrgId is an addition to the reference shape: the organisation a passkey login addresses.
    app.post(`/signer${signerApi.signerConfig.path}`, async (req) => ({
      email: { mode: appOf(req).emailMode },
      rootOrgId: appOf(req).orgId,
    }));

    // A passkey-stamped whoami addressed to the app's root organisation is the passkey lookup (single use).
    app.post(`/signer${signerApi.whoami.path}`, async (req) => {
      const { caller, raw } = await unwrapStampedRequest(ctx, req, signerApi.whoami, {
        passkey: { allowRootOrg: true },
      });
      // A signed body may propose the app's default smart-account kind, recorded if the user has none.
      const proposed = caller.passkey ? undefined : (JSON.parse(raw) as { smartAccountKind?: unknown });
      const [addresses, smartAccountKind] = await Promise.all([
        userAddresses(ctx.db, caller.user.orgId),
        smartAccountKindOf(ctx, { userId: caller.user.id, proposed: proposed?.smartAccountKind }),
      ]);
      return {
        ...(caller.user.email ? { email: caller.user.email } : {}),
        orgId: caller.user.orgId,
        userId: caller.user.id,
        ...addresses,
        ...(caller.passkey ? { credentialId: caller.passkey.credentialId } : {}),
        ...(smartAccountKind ? { smartAccountKind } : {}),
      };
    });
  },
});
