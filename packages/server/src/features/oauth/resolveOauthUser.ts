import type { App, StoredOauthProvider } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import type { ProviderSignIn } from "../../oauthProviders/exchangeCode";
import { linkProvider } from "../../oauthProviders/providerLinks";
import { createEmailOtp } from "../../otp/emailOtp";
import { createUser, findUserByEmail, type UserRecord } from "../../users/userStore";

/**
 * Who a provider's person is here: a user the provider is linked to, an existing user to prompt for
 * linking (by a code mailed to the address), or a user made just now.
 */
export type ResolvedOauthUser =
  | { linked: UserRecord }
  | { promptLinking: { otpId: string; email: string; orgId: string } }
  | { newUser: UserRecord };

/**
 * Finds, prompts or makes the user for a provider sign-in, in this order (the first that applies answers):
 *  1. linked: the app has a user linked to this provider's issuer and subject;
 *  2. prompt linking: the provider's verified email belongs to an existing user. The mailbox must be
 *     proven before linking: an email code is made and mailed, and the request remembers the organisation
 *     the ID token may be linked to;
 *  3. new user: the wallet, the user (with the email when the provider verified it) and the link, in one
 *     transaction.
 */
export async function resolveOauthUser(
  ctx: ServiceContext,
  params: { app: App; provider: StoredOauthProvider; signIn: ProviderSignIn; requestKey: string },
): Promise<ResolvedOauthUser> {
  const { app, provider, signIn, requestKey } = params;
  const { issuer } = signIn;
  const { subject, emailVerified } = signIn.user;
  const email = signIn.user.email ?? undefined;
  // 1.
  const linked = await ctx.db
    .selectFrom("user_oauth_providers")
    .innerJoin("users", "users.id", "user_oauth_providers.user_id")
    .select(["users.id", "users.org_id", "users.app_id", "users.email"])
    .where("user_oauth_providers.app_id", "=", app.id)
    .where("user_oauth_providers.issuer", "=", issuer)
    .where("user_oauth_providers.subject", "=", subject)
    .executeTakeFirst();
  if (linked)
    return { linked: { id: linked.id, orgId: linked.org_id, appId: linked.app_id, email: linked.email } };
  // 2.
  const existing = email && emailVerified ? await findUserByEmail(ctx.db, app.id, email) : null;
  if (existing && email) {
    const { otpId, mail } = await createEmailOtp(ctx, { app, user: existing, email });
    await ctx.db
      .updateTable("oauth_requests")
      .set({ link_org_id: existing.orgId })
      .where("request_key", "=", requestKey)
      .execute();
    ctx.mailer.send(mail);
    return { promptLinking: { otpId, email, orgId: existing.orgId } };
  }
  // 3.
  const newEmail = email && emailVerified ? email : null;
  const created = await createUser(
    ctx,
    { appId: app.id, email: newEmail, custody: app.custody },
    async (trx, u) => {
      await linkProvider(
        { ...ctx, db: trx },
        {
          user: u,
          providerName: provider.id,
          issuer,
          subject,
          email: email ?? null,
          name: signIn.name ?? null,
        },
      );
      return u;
    },
  );
  return { newUser: created };
}
