import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { listWebhookAttempts as attemptsOf } from "../webhooks/deliveryLog";
import { defineAdminHandler } from "./adminRoute";

/** `list_webhook_attempts`: every attempt of one of the app's deliveries, oldest first. */
export const listWebhookAttempts = defineAdminHandler({
  name: "list_webhook_attempts",
  async run(ctx, { admin, body }) {
    const attempts = await attemptsOf(ctx.db, { appId: admin.appId, deliveryId: body.deliveryId });
    if (!attempts) {
      throw apiError(
        ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND,
        `No webhook delivery ${body.deliveryId} in this app`,
      );
    }
    return { attempts };
  },
});
