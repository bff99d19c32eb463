import { adminRoute } from "../admin/adminRoute";
import { defineFeature } from "../defineFeature";
import { pregenerateUser } from "./pregenerateUser";

/**
 * Users before they sign in: `POST /admin/v1/users/pregenerate` (the protocol's `adminApi`), stamped by an
 * app admin key, makes a user and their wallet for an email or the app's own id. `latchkey users import`
 * (cli/usersImport.ts, users/importUsers.ts) does the same in bulk from a file.
 */
export const userImportFeature = defineFeature({
  name: "userImport",
  register(app, ctx) {
    adminRoute(app, ctx, pregenerateUser);
  },
});
