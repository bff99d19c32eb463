import type { passkeySignupRequestSchema } from "@latchkey/protocol";
import type { z } from "zod";
import type { ServiceContext } from "../service";
import type { App } from "./apps";
import { insertAuthenticator, verifyPasskeyRegistration } from "./passkeys";
import { issueSession } from "./sessions";
import { insertUser, prepareUser } from "./users";

/**
 * Passkey sign-up: the attestation is verified first, then the user, wallet and passkey are written in
 * one transaction. The session comes after, from a passkey-stamped create_read_write_session.
 */
export async function signupWithPasskey(
  ctx: ServiceContext,
  app: App,
  req: z.output<typeof passkeySignupRequestSchema>,
  ip: string,
) {
  const passkey = await verifyPasskeyRegistration(app, req.passkey);
  const now = ctx.now();
  const prepared = await prepareUser(ctx.keyring, app.id, null, now, req.email ?? null, ctx.wallets.derive);
  const user = await ctx.db.transaction().execute(async (trx) => {
    const u = await insertUser(trx, prepared);
    await insertAuthenticator(trx, u, passkey, `passkey-${now}`, now);
    return u;
  });
  await ctx.audit("user.signup", { appId: app.id, userId: user.id, ip, details: { method: "passkey" } });
  // The attestation just proved the passkey, so a session may come back with it: one prompt, not two.
  const session = req.targetPublicKey
    ? await issueSession(ctx.db, user, req.targetPublicKey, req.expirationSeconds, now, "passkey-signup")
    : undefined;
  return {
    orgId: user.orgId,
    userId: user.id,
    address: user.address,
    solanaAddress: user.solanaAddress,
    ...(session ? { credentialBundle: session.credentialBundle } : {}),
  };
}
