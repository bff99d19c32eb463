import { defineBackendHandler } from "./backendRoute";
import { listGrants } from "./grantStore";

/** `list_grants`: the grants the app's users made (one user's with `userId`), newest first. */
export const backendListGrants = defineBackendHandler({
  name: "list_grants",
  async run(ctx, { serverKey, body }) {
    return {
      grants: await listGrants(ctx, {
        appId: serverKey.appId,
        ...(body.userId ? { userId: body.userId } : {}),
        ...(body.status ? { status: body.status } : {}),
      }),
    };
  },
});
