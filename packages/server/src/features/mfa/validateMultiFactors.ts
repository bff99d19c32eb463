import type { MultiFactor } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import { issueSession } from "../../sessions/issueSession";
import { findUserByOrg } from "../../users/userStore";
import { checkAllFactors } from "./checkFactorCode";
import { type FactorContext, listFactors } from "./factorStore";
import { invalidPendingSignIn as invalid, openPendingSignIn } from "./pendingSignIn";

/** Redeems an MFA_REQUIRED payload with the factor codes: the pending sign-in becomes a session bundle. */
export async function validateMultiFactors(
  ctx: FactorContext,
  params: {
    app: App;
    encryptedPayload: string;
    multiFactors: { multiFactorId: string; multiFactorCode: string }[];
    ip: string;
  },
): Promise<{ payload: { credentialBundle: string }; multiFactors: MultiFactor[] }> {
  const { app, ip } = params;
  const pending = await openPendingSignIn(ctx, params.encryptedPayload);
  const now = ctx.now();
  if (pending.app !== app.id) throw invalid();
  if (pending.until <= now) throw invalid("The sign-in to complete has expired; start again");
  const challenge = await ctx.db
    .selectFrom("mfa_challenges")
    .selectAll()
    .where("id", "=", pending.cid)
    .executeTakeFirst();
  if (!challenge || challenge.used_at !== null)
    throw invalid("This sign-in was already completed; start again");
  await checkAllFactors(ctx, { userId: pending.uid, given: params.multiFactors });
  const user = await ctx.db
    .selectFrom("users")
    .select(["org_id"])
    .where("id", "=", pending.uid)
    .executeTakeFirst();
  const record = user ? await findUserByOrg(ctx.db, user.org_id) : null;
  if (!record) throw invalid();
  const bundle = await ctx.db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable("mfa_challenges")
      .set({ used_at: now })
      .where("id", "=", pending.cid)
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw invalid("This sign-in was already completed; start again");
    const session = await issueSession(
      { ...ctx, db: trx },
      {
        user: record,
        targetPublicKey: pending.tpk,
        expirationSeconds: pending.exp,
        name: "otp-mfa",
        signedInBy: "totp",
      },
    );
    return session.credentialBundle;
  });
  await ctx.audit("user.signin", { appId: app.id, userId: record.id, ip, details: { method: "otp+totp" } });
  return {
    payload: { credentialBundle: bundle },
    multiFactors: await listFactors(ctx, { userId: record.id }),
  };
}
