import type { passkeySignupRequestSchema, SignupResponse } from "@latchkey/protocol";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { issueSession } from "../../sessions/issueSession";
import { createUser } from "../../users/userStore";
import { insertAuthenticator } from "./authenticatorStore";
import { verifyPasskeyRegistration } from "./verifyPasskeyRegistration";

/**
 * Passkey sign-up: the attestation is verified first, then the user, wallet and passkey are written in
 * one transaction. An email given here is contact data only (`unverifiedEmail`): it never becomes an
 * email sign-in, so nobody can pre-claim another person's address.
 */
export async function signupWithPasskey(
  ctx: ServiceContext,
  params: { app: App; request: z.output<typeof passkeySignupRequestSchema>; ip: string },
): Promise<SignupResponse> {
  const { app, request, ip } = params;
  const passkey = await verifyPasskeyRegistration(app, request.passkey);
  const now = ctx.now();
  const user = await createUser(
    ctx,
    { appId: app.id, email: null, unverifiedEmail: request.email ?? null, custody: app.custody },
    async (trx, u) => {
      // The passkey that creates the user is its first sign-in method: a proof from the start.
      await insertAuthenticator(
        { ...ctx, db: trx },
        { user: u, passkey, name: `passkey-${now}`, addedWith: "signup" },
      );
      return u;
    },
  );
  await ctx.audit("user.signup", { appId: app.id, userId: user.id, ip, details: { method: "passkey" } });
  // The attestation just proved the passkey, so a session may come back with it: one prompt, not two.
  const session = request.targetPublicKey
    ? await issueSession(ctx, {
        user,
        targetPublicKey: request.targetPublicKey,
        expirationSeconds: request.expirationSeconds,
        name: "passkey-signup",
        signedInBy: "passkey",
      })
    : undefined;
  return {
    orgId: user.orgId,
    userId: user.id,
    address: user.address,
    solanaAddress: user.solanaAddress,
    ...(session ? { credentialBundle: session.credentialBundle } : {}),
  };
}
