import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/uniqueViolation";
import { apiError } from "../errors";
import type { UserRecord } from "../users/userStore";

/** A provider identity (issuer, subject) linked to a user; one identity belongs to one user per app. */
export async function linkProvider(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: {
    user: UserRecord;
    /** The app's provider id ("google", "auth0", …), called providerName on the wire. */
    providerName: string;
    issuer: string;
    subject: string;
    email: string | null;
    /** The person's name as the provider gave it, when it did. */
    name?: string | null;
  },
): Promise<string> {
  const { user } = params;
  const id = ctx.random.uuid();
  try {
    await ctx.db
      .insertInto("user_oauth_providers")
      .values({
        id,
        app_id: user.appId,
        user_id: user.id,
        provider_name: params.providerName,
        issuer: params.issuer,
        subject: params.subject,
        email: params.email,
        name: params.name ?? null,
        created_at: ctx.now(),
      })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw apiError(ErrorCode.OAUTH_PROVIDER_LINKED, "This sign-in is already linked to an account");
    }
    throw e;
  }
  return id;
}

/** Marks an ID token as used for linking; a second use is refused (atomic). */
export async function markTokenLinked(
  ctx: Pick<ServiceContext, "db" | "now">,
  params: { tokenHash: string },
): Promise<void> {
  const r = await ctx.db
    .updateTable("oauth_requests")
    .set({ linked_at: ctx.now() })
    .where("id_token_hash", "=", params.tokenHash)
    .where("linked_at", "is", null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) {
    throw apiError(ErrorCode.OAUTH_INVALID_TOKEN, "This ID token was already used");
  }
}
