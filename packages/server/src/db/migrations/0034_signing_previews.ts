import type { Kysely, Migration } from "kysely";

export const m0034: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 46: a held signature keeps what it does (its decoded actions, warnings, simulation and the
    // rule that held it, JSON) for the app's admins, and the admins who approved it so far (JSON array
    // of {id, name, at}: `approvals.required` distinct admins release it). Null for other activities.
    await db.schema.alterTable("activities").addColumn("preview", "text").execute();
    await db.schema.alterTable("activities").addColumn("approvals", "text").execute();
  },
};
