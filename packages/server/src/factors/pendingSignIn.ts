import { ErrorCode, type MultiFactor } from "@latchkey/protocol";
import type { App } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";
import { issueSession } from "../sessions/issueSession";
import { findUserByOrg, type UserRecord } from "../users/userStore";
import { checkAllFactors, listFactors } from "./totpFactors";

/** How long an MFA_REQUIRED payload may be redeemed. */
export const MFA_PAYLOAD_TTL_MS = 5 * 60 * 1000;

type PendingContext = Pick<ServiceContext, "db" | "keyring" | "now" | "random" | "audit">;

/** What the service needs to finish a sign-in once the second factor is given. */
interface PendingSignIn {
  cid: string;
  uid: string;
  app: string;
  tpk: string;
  exp?: number;
  until: number;
}

// Sealed with the keyring like every secret at rest, bound to this purpose: only this service opens it.
const SEAL_CONTEXT = "mfa_payload";
const invalid = (message = "The sign-in to complete is invalid; start again") =>
  apiError(ErrorCode.INVALID_MFA_PAYLOAD, message);

/**
 * Seals what the service needs to finish the sign-in, for itself only, single use and short-lived: the
 * `encryptedPayload` of an MFA_REQUIRED answer.
 */
export async function createPendingSignIn(
  ctx: PendingContext,
  params: { app: App; user: UserRecord; targetPublicKey: string; expirationSeconds?: number | undefined },
): Promise<string> {
  const now = ctx.now();
  const cid = ctx.random.uuid();
  await ctx.db
    .insertInto("mfa_challenges")
    .values({
      id: cid,
      user_id: params.user.id,
      expires_at: now + MFA_PAYLOAD_TTL_MS,
      used_at: null,
      created_at: now,
    })
    .execute();
  const pending: PendingSignIn = {
    cid,
    uid: params.user.id,
    app: params.app.id,
    tpk: params.targetPublicKey,
    until: now + MFA_PAYLOAD_TTL_MS,
    ...(params.expirationSeconds ? { exp: params.expirationSeconds } : {}),
  };
  return ctx.keyring.seal(new TextEncoder().encode(JSON.stringify(pending)), SEAL_CONTEXT);
}

async function openPending(ctx: PendingContext, payload: string): Promise<PendingSignIn> {
  try {
    return JSON.parse((await ctx.keyring.open(payload, SEAL_CONTEXT)).toString("utf8")) as PendingSignIn;
  } catch {
    throw invalid();
  }
}

/** Redeems an MFA_REQUIRED payload with the factor codes: the pending sign-in becomes a session bundle. */
export async function validateMultiFactors(
  ctx: PendingContext,
  params: {
    app: App;
    encryptedPayload: string;
    multiFactors: { multiFactorId: string; multiFactorCode: string }[];
    ip: string;
  },
): Promise<{ payload: { credentialBundle: string }; multiFactors: MultiFactor[] }> {
  const { app, ip } = params;
  const pending = await openPending(ctx, params.encryptedPayload);
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
