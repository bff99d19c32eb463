import { userCustody } from "../../users/userStore";
import { defineQuery } from "./defineQuery";

export const whoami = defineQuery({
  name: "whoami",
  async run(ctx, { caller }) {
    return {
      organizationId: caller.user.orgId,
      organizationName: "",
      userId: caller.user.id,
      username: caller.user.email ?? "",
      ...(await userCustody(ctx, caller.user)),
    };
  },
});
