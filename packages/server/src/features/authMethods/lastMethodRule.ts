import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";

/** The last way to sign in can never be removed (DESIGN §9): checked inside the removing transaction. */
export async function assertKeepsASignInMethod(
  ctx: Pick<ServiceContext, "db">,
  params: { userId: string; removePasskeys?: number; removeEmail?: boolean; removeProviders?: number },
): Promise<void> {
  const { db } = ctx;
  const { userId } = params;
  const user = await db
    .selectFrom("users")
    .select("email")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const passkeys = await db
    .selectFrom("authenticators")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  const providers = await db
    .selectFrom("user_oauth_providers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  const remaining =
    (user.email && !params.removeEmail ? 1 : 0) +
    Number(passkeys.n) -
    (params.removePasskeys ?? 0) +
    Number(providers.n) -
    (params.removeProviders ?? 0);
  if (remaining < 1) {
    throw apiError(
      ErrorCode.LAST_AUTH_METHOD,
      "This is the last way to sign in to this account; add another first",
    );
  }
}
