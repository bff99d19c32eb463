import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../../../db";

/** How long an enrolment link works unless asked otherwise: 15 minutes. */
export const ENROLMENT_LINK_TTL_MS = 15 * 60_000;
/** The longest an enrolment link may be asked to work: 7 days. */
export const ENROLMENT_LINK_MAX_TTL_MS = 7 * 24 * 3600_000;

/** What the service keeps of an enrolment link's token: its SHA-256, hex. */
export const enrolmentTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** The WebAuthn challenge a link's passkey is made over: bound to the link's token, base64url. */
export const enrolmentChallenge = (token: string) =>
  createHash("sha256").update(`latchkey console enrolment:${token}`).digest("base64url");

/** Where a link leads: the console's enrolment page, the token in the fragment (never sent to a server log). */
export const enrolmentUrl = (serviceUrl: string, token: string) =>
  `${serviceUrl.replace(/\/+$/, "")}/admin/enrol#${token}`;

export interface EnrolmentLink {
  adminId: string;
  /** True when this call made the admin; false when it existed (the link adds a passkey to it). */
  created: boolean;
  token: string;
  expiresAt: number;
}

/**
 * Makes (or finds) the console admin `name` of app `appId` and a one-time link that enrols a passkey for
 * them, stored hashed, single use, expiring after `ttlMs`. An admin removed before is made active again.
 * `latchkey admin create` prints the link; `npm start` prints one for the dev app.
 *
 * @example
 * const link = await createEnrolmentLink({ db, now: Date.now() }, { appId: "shop", name: "ada" });
 * console.log(enrolmentUrl("https://auth.example.com", link.token));
 */
export async function createEnrolmentLink(
  ctx: { db: Db; now: number },
  params: { appId: string; name: string; ttlMs?: number },
): Promise<EnrolmentLink> {
  const { db, now } = ctx;
  const ttlMs = params.ttlMs ?? ENROLMENT_LINK_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 60_000 || ttlMs > ENROLMENT_LINK_MAX_TTL_MS)
    throw new Error("An enrolment link lives from 1 minute to 7 days");
  const name = params.name.trim();
  if (!/^[\p{L}\p{N} ._@+-]{1,64}$/u.test(name))
    throw new Error("An admin's name is 1 to 64 letters, digits, spaces and . _ @ + -");
  const app = await db.selectFrom("apps").select("id").where("id", "=", params.appId).executeTakeFirst();
  if (!app) throw new Error(`No app ${params.appId}`);
  const token = randomBytes(32).toString("base64url");
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("console_admins")
      .select(["id", "revoked_at"])
      .where("app_id", "=", app.id)
      .where("name", "=", name)
      .executeTakeFirst();
    const adminId = existing?.id ?? randomUUID();
    if (!existing) {
      await trx
        .insertInto("console_admins")
        .values({ id: adminId, app_id: app.id, name, created_at: now, revoked_at: null })
        .execute();
    } else if (existing.revoked_at !== null) {
      await trx.updateTable("console_admins").set({ revoked_at: null }).where("id", "=", adminId).execute();
    }
    await trx
      .insertInto("console_enrolments")
      .values({
        token_hash: enrolmentTokenHash(token),
        admin_id: adminId,
        expires_at: now + ttlMs,
        used_at: null,
        created_at: now,
      })
      .execute();
    return { adminId, created: !existing, token, expiresAt: now + ttlMs };
  });
}

/**
 * Removes console admin `name` of app `appId`: their sessions end at once (the next stamp answers
 * SESSION_EXPIRED), their passkeys and unused links are deleted. False when there is no such admin.
 */
export async function removeConsoleAdmin(
  ctx: { db: Db; now: number },
  params: { appId: string; name: string },
): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const admin = await trx
      .selectFrom("console_admins")
      .select("id")
      .where("app_id", "=", params.appId)
      .where("name", "=", params.name.trim())
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!admin) return false;
    await trx.updateTable("console_admins").set({ revoked_at: ctx.now }).where("id", "=", admin.id).execute();
    await trx
      .updateTable("console_sessions")
      .set({ revoked_at: ctx.now })
      .where("admin_id", "=", admin.id)
      .where("revoked_at", "is", null)
      .execute();
    await trx.deleteFrom("console_passkeys").where("admin_id", "=", admin.id).execute();
    await trx.deleteFrom("console_enrolments").where("admin_id", "=", admin.id).execute();
    return true;
  });
}
