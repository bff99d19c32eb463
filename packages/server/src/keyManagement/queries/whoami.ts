import { defineQuery } from "./defineQuery";

export const whoami = defineQuery({
  name: "whoami",
  async run(_ctx, { caller }) {
    return {
      organizationId: caller.user.orgId,
      organizationName: "",
      userId: caller.user.id,
      username: caller.user.email ?? "",
    };
  },
});
