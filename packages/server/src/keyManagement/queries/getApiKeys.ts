import { apiKeysOf, defineQuery } from "./defineQuery";
import { assertOwnUser } from "./ownUser";

export const getApiKeys = defineQuery({
  name: "get_api_keys",
  async run(ctx, { caller, body }) {
    assertOwnUser(caller, body.userId);
    return { apiKeys: await apiKeysOf(ctx, caller.user.id) };
  },
});
