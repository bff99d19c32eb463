import type { AdminEndpointName } from "./adminApi";

/**
 * The admin API's paths as plain data (`adminApi` in `@latchkey/protocol/schemas` holds the same with its
 * schemas): what a client such as the admin console needs to call it without shipping a schema library.
 * `adminRoutes.test.ts` keeps the two tables the same.
 */
export const adminRoutes = {
  search_users: "/admin/v1/users/search",
  get_user: "/admin/v1/users/get",
  revoke_sessions: "/admin/v1/users/revoke_sessions",
  disable_user: "/admin/v1/users/disable",
  enable_user: "/admin/v1/users/enable",
  list_activities: "/admin/v1/activities/list",
  approve_activity: "/admin/v1/activities/approve",
  reject_activity: "/admin/v1/activities/reject",
  sponsorship_spend: "/admin/v1/sponsorship/spend",
  list_audit_events: "/admin/v1/audit/list",
  list_webhook_deliveries: "/admin/v1/webhooks/deliveries",
  list_webhook_attempts: "/admin/v1/webhooks/attempts",
  redeliver_webhook: "/admin/v1/webhooks/redeliver",
  daily_stats: "/admin/v1/stats/daily",
  get_app: "/admin/v1/app/get",
  sign_out: "/admin/v1/console/sign_out",
  pregenerate_user: "/admin/v1/users/pregenerate",
} as const satisfies Record<AdminEndpointName, string>;

/** The `type` an admin API body carries: `ADMIN_` and the endpoint's name in capitals. */
export function adminType<N extends AdminEndpointName>(name: N): `ADMIN_${Uppercase<N>}` {
  return `ADMIN_${name.toUpperCase()}` as `ADMIN_${Uppercase<N>}`;
}

/** The admin console's sign-in endpoints (`adminConsoleApi`), not stamped by an admin key. */
export const adminConsoleRoutes = {
  enrolment: "/admin/v1/console/enrolment",
  enrol: "/admin/v1/console/enrol",
  sign_in: "/admin/v1/console/sign_in",
} as const;

/** The `type` of a console sign-in body (its passkey stamp covers it). */
export const ADMIN_CONSOLE_SIGN_IN = "ADMIN_CONSOLE_SIGN_IN";
/** The longest an admin console session lasts, and how long it lasts unless asked for less. */
export const ADMIN_SESSION_MAX_SECONDS = 12 * 3600;
export const ADMIN_SESSION_DEFAULT_SECONDS = 3600;
