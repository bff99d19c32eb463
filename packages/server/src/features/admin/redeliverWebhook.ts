import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { redeliverWebhook as redeliver } from "../webhooks/deliveryLog";
import { defineAdminHandler } from "./adminRoute";

/** `redeliver_webhook`: the delivery is due again now, with the same `webhook-id` and a new retry window. */
export const redeliverWebhook = defineAdminHandler({
  name: "redeliver_webhook",
  async run(ctx, { admin, body, ip }) {
    if (!(await redeliver(ctx, { appId: admin.appId, deliveryId: body.deliveryId }))) {
      throw apiError(
        ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND,
        `No webhook delivery ${body.deliveryId} in this app`,
      );
    }
    await ctx.audit("admin.webhook_redelivered", {
      appId: admin.appId,
      ip,
      details: { admin: admin.name, deliveryId: body.deliveryId },
    });
    return { redelivered: true as const };
  },
});
