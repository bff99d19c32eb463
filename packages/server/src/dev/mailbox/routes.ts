import { defineFeature } from "../../features/defineFeature";
import { mailboxPage } from "./mailboxPage";

/** Dev only: every mail the service would have sent, as JSON and as a page. */
export const devMailboxFeature = defineFeature({
  name: "devMailbox",
  register(app, ctx) {
    if (!ctx.dev) return;
    app.get("/dev/mailbox.json", async () => ctx.mailer.mailbox());
    app.get("/dev/mailbox", async (_req, reply) =>
      reply.type("text/html; charset=utf-8").send(mailboxPage(ctx.mailer.mailbox())),
    );
  },
});
