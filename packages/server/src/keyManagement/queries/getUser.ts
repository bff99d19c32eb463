import { wireTimestamp } from "../toActivity";
import { apiKeysOf, defineQuery, toAuthenticator } from "./defineQuery";
import { assertOwnUser } from "./ownUser";

export const getUser = defineQuery({
  name: "get_user",
  async run(ctx, { caller, body }) {
    assertOwnUser(caller, body.userId);
    const { user } = caller;
    const row = await ctx.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    const authenticators = await ctx.db
      .selectFrom("authenticators")
      .selectAll()
      .where("user_id", "=", user.id)
      .orderBy("created_at")
      .execute();
    return {
      user: {
        userId: row.id,
        userName: row.email ?? "",
        userEmail: row.email ?? undefined,
        authenticators: authenticators.map(toAuthenticator),
        apiKeys: await apiKeysOf(ctx, user.id),
        createdAt: wireTimestamp(row.created_at),
        updatedAt: wireTimestamp(row.created_at),
      },
    };
  },
});
