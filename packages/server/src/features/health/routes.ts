import { defineFeature } from "../defineFeature";

/** `/healthz` for probes: answers once the database does. */
export const healthFeature = defineFeature({
  name: "health",
  register(app, ctx) {
    app.get("/healthz", async () => {
      await ctx.db.selectFrom("apps").select("id").limit(1).execute();
      return { status: "ok", database: ctx.dbKind };
    });
  },
});
