import type { App } from "../../apps/appDirectory";
import { newTotpSecret, otpauthUrl } from "../../crypto/totp";
import type { UserRecord } from "../../users/userStore";
import type { FactorContext } from "./factorStore";

/**
 * Starts a TOTP factor: a 160-bit secret, sealed at rest; it counts once a first code verifies it.
 * `addedWith` is the step-up proof the request came with (see sessions/stepUp.ts).
 */
export async function requestTotp(
  ctx: FactorContext,
  params: { app: App; user: UserRecord; addedWith: string | null },
) {
  const { app, user } = params;
  const now = ctx.now();
  // Only one unverified factor at a time: asking again replaces it.
  await ctx.db
    .deleteFrom("mfa_factors")
    .where("user_id", "=", user.id)
    .where("verified_at", "is", null)
    .execute();
  const id = ctx.random.uuid();
  const secret = newTotpSecret();
  await ctx.db
    .insertInto("mfa_factors")
    .values({
      id,
      user_id: user.id,
      type: "totp",
      sealed_secret: ctx.keyring.seal(secret, `mfa_factor:${id}`),
      verified_at: null,
      last_step: 0,
      failed_attempts: 0,
      locked_until: null,
      added_with: params.addedWith,
      created_at: now,
    })
    .execute();
  const url = otpauthUrl({ secret, issuer: app.name, account: user.email ?? user.id });
  secret.fill(0);
  await ctx.audit("mfa.requested", {
    appId: app.id,
    userId: user.id,
    details: { stepUp: params.addedWith },
  });
  return { multiFactorType: "totp" as const, multiFactorId: id, multiFactorTotpUrl: url };
}
