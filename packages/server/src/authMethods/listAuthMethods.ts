import type { AuthMethods } from "@latchkey/protocol";
import type { Db } from "../db";
import { listFactors } from "./mfa";
import type { UserRecord } from "./users";

/** Every way the user can sign in, as the account page shows them. */
export async function listAuthMethods(db: Db, user: UserRecord): Promise<AuthMethods> {
  const passkeys = await db
    .selectFrom("authenticators")
    .select(["id", "name", "created_at"])
    .where("user_id", "=", user.id)
    .orderBy("created_at")
    .execute();
  const providers = await db
    .selectFrom("user_oauth_providers")
    .select(["id", "issuer", "provider_name", "email"])
    .where("user_id", "=", user.id)
    .orderBy("created_at")
    .execute();
  return {
    ...(user.email ? { email: user.email } : {}),
    oauthProviders: providers.map((p) => ({
      providerId: p.id,
      issuer: p.issuer,
      providerName: p.provider_name,
      ...(p.email ? { userDisplayName: p.email } : {}),
    })),
    passkeys: passkeys.map((p) => ({ authenticatorId: p.id, name: p.name, createdAt: p.created_at })),
    mfaFactors: await listFactors(db, user.id),
  };
}
