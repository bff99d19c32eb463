import { ErrorCode } from "@latchkey/protocol";
import type { AppAdminKey } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { isUniqueViolation } from "../../db/uniqueViolation";
import { apiError } from "../../errors";
import { createUser, userAddresses } from "../../users/userStore";
import { defineAdminHandler } from "../admin/adminRoute";
import { toUserSummary } from "../admin/shared";

type UserRow = {
  id: string;
  org_id: string;
  email: string | null;
  external_id?: string | null;
  created_at: number;
  disabled_at?: number | null;
  claimed_at?: number | null;
};

const USER_COLUMNS = [
  "id",
  "org_id",
  "email",
  "external_id",
  "created_at",
  "disabled_at",
  "claimed_at",
] as const;

/**
 * `pregenerate_user`: a user and their wallet, made by the app's backend for an email (a sign-in address
 * the person will prove) and/or the app's own `externalId`, before the person ever signs in; answers the
 * addresses. The first sign-in with that email (a code or a magic link to it, or a social sign-in linked
 * by one) claims the user (sessions/issueSession.ts sets `claimedAt`); nobody else can: a passkey sign-up
 * never takes an email, a social sign-in with that email must prove it first. Idempotent: the same email
 * or `externalId` answers the same user (`created: false`); an `externalId` user given an email later gets
 * it, if nobody has it.
 */
export const pregenerateUser = defineAdminHandler({
  name: "pregenerate_user",
  async run(ctx, { admin, body, ip }) {
    const email = body.email?.trim().toLowerCase();
    const externalId = body.externalId;
    if (!email && !externalId)
      throw apiError(ErrorCode.INVALID_REQUEST, "Give the user's email, an externalId, or both");
    // Split custody: the wallet is made by the service, whole, and held so until the person's first
    // sign-in, when their key holder splits it (docs/split-custody.md §3.1).
    for (let attempt = 0; ; attempt++) {
      const existing = await findExisting(ctx, admin, { email, externalId });
      if (existing) return answer(ctx, existing, false);
      try {
        const made = await createUser(
          ctx,
          { appId: admin.appId, email: email ?? null },
          async (trx, user) => {
            const now = ctx.now();
            await trx
              .updateTable("users")
              .set({ external_id: externalId ?? null, pregenerated_at: now })
              .where("id", "=", user.id)
              .execute();
            await ctx.audit(
              "user.pregenerated",
              { appId: admin.appId, userId: user.id, ip, details: { admin: admin.name, externalId } },
              trx,
            );
            return user;
          },
        );
        const row = await ctx.db
          .selectFrom("users")
          .select(USER_COLUMNS)
          .where("id", "=", made.id)
          .executeTakeFirstOrThrow();
        return answer(ctx, row, true);
      } catch (e) {
        // Made meanwhile by another request for the same email or id: answer that one.
        if (!isUniqueViolation(e) || attempt > 0) throw e;
      }
    }
  },
});

/** The app's user with this email or external id; conflicting ones are refused (EXTERNAL_ID_IN_USE). */
async function findExisting(
  ctx: Pick<ServiceContext, "db" | "audit">,
  admin: AppAdminKey,
  { email, externalId }: { email: string | undefined; externalId: string | undefined },
): Promise<UserRow | null> {
  const byEmail = email
    ? await ctx.db
        .selectFrom("users")
        .select(USER_COLUMNS)
        .where("app_id", "=", admin.appId)
        .where("email", "=", email)
        .executeTakeFirst()
    : undefined;
  const byId = externalId
    ? await ctx.db
        .selectFrom("users")
        .select(USER_COLUMNS)
        .where("app_id", "=", admin.appId)
        .where("external_id", "=", externalId)
        .executeTakeFirst()
    : undefined;
  const inUse = () =>
    apiError(
      ErrorCode.EXTERNAL_ID_IN_USE,
      "This externalId is another user's, or this email's user has another",
    );
  if (byEmail && byId) {
    if (byEmail.id !== byId.id) throw inUse();
    return byEmail;
  }
  if (byEmail) {
    if (!externalId || byEmail.external_id === externalId) return byEmail;
    if (byEmail.external_id) throw inUse();
    await ctx.db.updateTable("users").set({ external_id: externalId }).where("id", "=", byEmail.id).execute();
    return { ...byEmail, external_id: externalId };
  }
  if (byId) {
    if (!email) return byId;
    if (byId.email) throw inUse();
    // The app's own id first, the email later: the email becomes the user's sign-in address.
    try {
      await ctx.db
        .updateTable("users")
        .set({ email })
        .where("id", "=", byId.id)
        .where("email", "is", null)
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw apiError(ErrorCode.EMAIL_IN_USE, "Another user has this email");
      throw e;
    }
    return { ...byId, email };
  }
  return null;
}

async function answer(ctx: Pick<ServiceContext, "db">, user: UserRow, created: boolean) {
  const [addresses, wallet] = await Promise.all([
    userAddresses(ctx.db, user.org_id),
    ctx.db
      .selectFrom("wallets")
      .select("id")
      .where("user_id", "=", user.id)
      .orderBy("created_at", "desc")
      .executeTakeFirst(),
  ]);
  return {
    user: toUserSummary(user),
    externalId: user.external_id ?? null,
    created,
    claimedAt: user.claimed_at == null ? null : Number(user.claimed_at),
    walletId: wallet?.id ?? "",
    address: addresses.address ?? "",
    solanaAddress: addresses.solanaAddress ?? "",
  };
}
