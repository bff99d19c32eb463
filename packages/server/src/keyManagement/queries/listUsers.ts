import { defineQuery } from "./defineQuery";
import { getUser } from "./getUser";

/**
 * `list_users`: the users of the caller's organisation. A user's organisation (sub-organisation) holds
 * that user alone, so the list is the caller, described as `get_user` describes them.
 */
export const listUsers = defineQuery({
  name: "list_users",
  async run(ctx, { caller, body }) {
    const { user } = await getUser.run(ctx, {
      caller,
      body: { organizationId: body.organizationId, userId: caller.user.id },
    });
    return { users: [user] };
  },
});
