import { defineFeature } from "../defineFeature";
import { adminRoute } from "./adminRoute";
import { approveActivity } from "./approveActivity";
import { consoleRoutes } from "./console/routes";
import { dailyStats } from "./dailyStats";
import { disableUser } from "./disableUser";
import { enableUser } from "./enableUser";
import { getApp } from "./getApp";
import { getUser } from "./getUser";
import { listActivities } from "./listActivities";
import { listAuditEvents } from "./listAuditEvents";
import { listWebhookAttempts } from "./listWebhookAttempts";
import { listWebhookDeliveries } from "./listWebhookDeliveries";
import { redeliverWebhook } from "./redeliverWebhook";
import { rejectActivity } from "./rejectActivity";
import { revokeSessions } from "./revokeSessions";
import { searchUsers } from "./searchUsers";
import { signOut } from "./signOut";
import { sponsorshipSpend } from "./sponsorshipSpend";

/**
 * The admin API (`POST /admin/v1/*`, the protocol's `adminApi`): an app's admin keys search and act on
 * the app's users, activities, sponsorship, security log and webhooks. Every request is stamped by an
 * admin key over its exact body (authenticateAdmin.ts); a key sees its own app only.
 */
export const adminFeature = defineFeature({
  name: "admin",
  register(app, ctx) {
    adminRoute(app, ctx, searchUsers);
    adminRoute(app, ctx, getUser);
    adminRoute(app, ctx, revokeSessions);
    adminRoute(app, ctx, disableUser);
    adminRoute(app, ctx, enableUser);
    adminRoute(app, ctx, listActivities);
    adminRoute(app, ctx, approveActivity);
    adminRoute(app, ctx, rejectActivity);
    adminRoute(app, ctx, sponsorshipSpend);
    adminRoute(app, ctx, listAuditEvents);
    adminRoute(app, ctx, listWebhookDeliveries);
    adminRoute(app, ctx, listWebhookAttempts);
    adminRoute(app, ctx, redeliverWebhook);
    adminRoute(app, ctx, dailyStats);
    adminRoute(app, ctx, getApp);
    adminRoute(app, ctx, signOut);
    // The console (`/admin`): its pages, and how an admin enrols a passkey and signs in.
    consoleRoutes(app, ctx);
  },
});
