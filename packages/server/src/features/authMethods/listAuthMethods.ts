import type { AuthMethods } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import type { UserRecord } from "../../users/userStore";
import { listFactors } from "../mfa/factorStore";

/** Every way the user can sign in, as the account page shows them. */
export async function listAuthMethods(
  ctx: Pick<ServiceContext, "db">,
  params: { user: UserRecord },
): Promise<AuthMethods> {
  const { user } = params;
  const passkeys = await ctx.db
    .selectFrom("authenticators")
    .select(["id", "name", "created_at"])
    .where("user_id", "=", user.id)
    .orderBy("created_at")
    .execute();
  const providers = await ctx.db
    .selectFrom("user_oauth_providers")
    .select(["id", "issuer", "provider_name", "email", "name"])
    .where("user_id", "=", user.id)
    .orderBy("created_at")
    .execute();
  return {
    ...(user.email ? { email: user.email } : {}),
    oauthProviders: providers.map((p) => ({
      providerId: p.id,
      issuer: p.issuer,
      providerName: p.provider_name,
      // The name the provider gave (Apple: at the first authorisation only), else the email it gave.
      ...(p.name || p.email ? { userDisplayName: p.name ?? p.email ?? "" } : {}),
    })),
    passkeys: passkeys.map((p) => ({ authenticatorId: p.id, name: p.name, createdAt: p.created_at })),
    mfaFactors: await listFactors(ctx, { userId: user.id }),
  };
}
