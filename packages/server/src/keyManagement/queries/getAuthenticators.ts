import { defineQuery, toAuthenticator } from "./defineQuery";
import { assertOwnUser } from "./ownUser";

export const getAuthenticators = defineQuery({
  name: "get_authenticators",
  async run(ctx, { caller, body }) {
    assertOwnUser(caller, body.userId);
    const rows = await ctx.db
      .selectFrom("authenticators")
      .selectAll()
      .where("user_id", "=", caller.user.id)
      .orderBy("created_at")
      .execute();
    return { authenticators: rows.map(toAuthenticator) };
  },
});
