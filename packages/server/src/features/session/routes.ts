import { signerApi } from "@latchkey/protocol/schemas";
import { shareKeyHex } from "../../custody/shareKey";
import { route, stampedRoute } from "../../http/route";
import { smartAccountKindOf } from "../../users/smartAccountKind";
import { userAddresses, userCustody } from "../../users/userStore";
import { defineFeature } from "../defineFeature";

/** The app's signer config, and who is signed in (session or passkey). */
export const sessionFeature = defineFeature({
  name: "session",
  register(app, ctx) {
    // rootOrgId is an addition to the reference shape: the organisation a passkey login addresses.
    route(app, signerApi.signerConfig, async ({ app }) => {
      // Enforced confirmations (issue 46): what the auth frame confirms, so the modal does not ask twice.
      const confirmation = (await ctx.apps.signingPolicyOf(app.id))?.confirmation;
      return {
        email: { mode: app.emailMode },
        rootOrgId: app.orgId,
        // Split custody (docs/split-custody.md §2): what a key holder seals the user's share to.
        custody: { mode: app.custody, shareKey: await shareKeyHex(ctx) },
        ...(confirmation ? { confirmation: { required: confirmation.required } } : {}),
      };
    });

    // A passkey-stamped whoami addressed to the app's root organisation is the passkey lookup (single use).
    stampedRoute(
      app,
      ctx,
      signerApi.whoami,
      async ({ caller }) => {
        // A signed body may propose the app's default smart-account kind, recorded if the user has none.
        const proposed = caller.passkey ? undefined : caller.body.smartAccountKind;
        const [addresses, smartAccount, custody] = await Promise.all([
          userAddresses(ctx.db, caller.user.orgId),
          smartAccountKindOf(ctx, { userId: caller.user.id, proposed }),
          userCustody(ctx, caller.user),
        ]);
        return {
          ...(caller.user.email ? { email: caller.user.email } : {}),
          orgId: caller.user.orgId,
          userId: caller.user.id,
          ...addresses,
          ...custody,
          ...(caller.passkey ? { credentialId: caller.passkey.credentialId } : {}),
          ...smartAccount,
        };
      },
      { passkey: { allowRootOrg: true } },
    );
  },
});
