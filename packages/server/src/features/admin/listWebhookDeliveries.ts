import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { listWebhookDeliveries as deliveries } from "../webhooks/deliveryLog";
import { defineAdminHandler } from "./adminRoute";
import { readCursor } from "./shared";

/** `list_webhook_deliveries`: the app's webhook delivery log, newest first (features/webhooks). */
export const listWebhookDeliveries = defineAdminHandler({
  name: "list_webhook_deliveries",
  async run(ctx, { admin, body }) {
    readCursor(body.cursor);
    try {
      return await deliveries(ctx.db, {
        appId: admin.appId,
        ...(body.status !== undefined ? { status: body.status } : {}),
        ...(body.eventType !== undefined ? { eventType: body.eventType } : {}),
        ...(body.eventId !== undefined ? { eventId: body.eventId } : {}),
        ...(body.endpointId !== undefined ? { endpointId: body.endpointId } : {}),
        ...(body.limit !== undefined ? { limit: body.limit } : {}),
        ...(body.cursor !== undefined ? { cursor: body.cursor } : {}),
      });
    } catch (e) {
      if (e instanceof RangeError)
        throw apiError(ErrorCode.INVALID_CURSOR, "The cursor is not one a page answered");
      throw e;
    }
  },
});
