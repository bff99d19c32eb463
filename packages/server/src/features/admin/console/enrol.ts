import { type AdminConsoleRequest, type AdminConsoleResponse, ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../../context";
import type { Db } from "../../../db";
import { isUniqueViolation } from "../../../db/uniqueViolation";
import { apiError } from "../../../errors";
import { verifyPasskeyRegistration } from "../../passkeys/verifyPasskeyRegistration";
import { enrolmentChallenge, enrolmentTokenHash } from "./consoleAdmins";

type Ctx = Pick<ServiceContext, "db" | "now" | "random" | "audit">;

/**
 * The enrolment link `token` names, checked in order: it exists and its admin was not removed
 * (ENROLMENT_LINK_UNKNOWN), it enrolled nothing yet (ENROLMENT_LINK_USED), it has not expired
 * (ENROLMENT_LINK_EXPIRED). All 400s: the console shows each one's words.
 */
async function liveLink(db: Db, token: string, now: number) {
  const link = await db
    .selectFrom("console_enrolments")
    .innerJoin("console_admins", "console_admins.id", "console_enrolments.admin_id")
    .innerJoin("apps", "apps.id", "console_admins.app_id")
    .select([
      "console_enrolments.token_hash",
      "console_enrolments.expires_at",
      "console_enrolments.used_at",
      "console_admins.id as admin_id",
      "console_admins.name as admin_name",
      "console_admins.revoked_at",
      "apps.id as app_id",
      "apps.name as app_name",
    ])
    .where("console_enrolments.token_hash", "=", enrolmentTokenHash(token))
    .executeTakeFirst();
  if (!link || link.revoked_at !== null)
    throw apiError(ErrorCode.ENROLMENT_LINK_UNKNOWN, "This enrolment link is not one the service made");
  if (link.used_at !== null)
    throw apiError(ErrorCode.ENROLMENT_LINK_USED, "This enrolment link was used already; ask for a new one");
  if (Number(link.expires_at) <= now)
    throw apiError(ErrorCode.ENROLMENT_LINK_EXPIRED, "This enrolment link has expired; ask for a new one");
  return link;
}

/** `console/enrolment`: what the link is for and the challenge its passkey signs. It uses nothing up. */
export async function readEnrolment(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { token: string; rpId: string },
): Promise<AdminConsoleResponse<"enrolment">> {
  const link = await liveLink(ctx.db, params.token, ctx.now());
  return {
    adminId: link.admin_id,
    adminName: link.admin_name,
    appId: link.app_id,
    appName: link.app_name,
    rpId: params.rpId,
    challenge: enrolmentChallenge(params.token),
    expiresAt: Number(link.expires_at),
  };
}

/**
 * `console/enrol`: verifies the passkey made over the link's challenge against the console's relying
 * party (features/passkeys/verifyPasskeyRegistration.ts), then in one transaction uses the link up (once,
 * `UPDATE … WHERE used_at IS NULL`: of two racing requests one wins) and stores the passkey, bound to the
 * origin and relying party it was made on.
 */
export async function enrolPasskey(
  ctx: Ctx,
  params: { request: AdminConsoleRequest<"enrol">; origin: string; rpId: string; ip: string },
): Promise<AdminConsoleResponse<"enrol">> {
  const { request, origin, rpId } = params;
  const link = await liveLink(ctx.db, request.token, ctx.now());
  const passkey = await verifyPasskeyRegistration(
    { webauthn: { rpId, origins: [origin] } },
    { challenge: enrolmentChallenge(request.token), attestation: request.attestation },
  );
  const passkeyId = ctx.random.uuid();
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable("console_enrolments")
      .set({ used_at: now })
      .where("token_hash", "=", link.token_hash)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) {
      // Someone else used it (or it just expired): say which, as a first look would have.
      await liveLink(trx, request.token, now);
      throw apiError(
        ErrorCode.ENROLMENT_LINK_USED,
        "This enrolment link was used already; ask for a new one",
      );
    }
    try {
      await trx
        .insertInto("console_passkeys")
        .values({
          id: passkeyId,
          admin_id: link.admin_id,
          credential_id: passkey.credentialId,
          public_key: passkey.publicKey,
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          rp_id: rpId,
          origin,
          name: request.passkeyName ?? "Passkey",
          created_at: now,
          last_used_at: null,
        })
        .execute();
    } catch (e) {
      if (isUniqueViolation(e))
        throw apiError(ErrorCode.PASSKEY_EXISTS, "This passkey is already registered");
      throw e;
    }
    await ctx.audit(
      "admin.console_enrolled",
      { appId: link.app_id, ip: params.ip, details: { admin: link.admin_name, passkeyId } },
      trx,
    );
  });
  return { adminId: link.admin_id, name: link.admin_name, appId: link.app_id, passkeyId };
}
