import type { WebhookEventType } from "./config";

type Details = Record<string, unknown>;

/** A webhook event made from an audit row: its type and what `data` carries besides appId and userId. */
export interface MappedEvent {
  type: WebhookEventType;
  data: Details;
}

const pick = (details: Details, keys: readonly string[]): Details => {
  const out: Details = {};
  for (const k of keys) if (details[k] !== undefined && details[k] !== null) out[k] = details[k];
  return out;
};

/**
 * The one table from audit events (ctx.audit) to webhook events: an event exists exactly when its audit
 * row does, written in the same transaction. Each entry names the detail fields the payload carries (never
 * a secret, a code or a key); an audit event not listed makes no webhook.
 */
const FROM_AUDIT: Record<string, (d: Details) => MappedEvent | null> = {
  "user.signup": (d) => ({ type: "user.created", data: pick(d, ["method", "provider"]) }),
  "user.signin": (d) => ({ type: "user.signed_in", data: pick(d, ["method", "provider"]) }),
  // Made by the app's backend ahead of the person's first sign-in (features/userImport), then claimed by it.
  "user.pregenerated": (d) => ({
    type: "user.created",
    data: { method: "pregenerated", ...pick(d, ["externalId"]) },
  }),
  "user.claimed": (d) => ({ type: "user.claimed", data: pick(d, ["method"]) }),
  "passkey.added": (d) => ({ type: "auth_method.added", data: { method: "passkey", ...pick(d, ["names"]) } }),
  "passkey.removed": () => ({ type: "auth_method.removed", data: { method: "passkey" } }),
  "oauth.linked": (d) => ({
    type: "auth_method.added",
    data: { method: "oauth", ...pick(d, ["providers"]) },
  }),
  "oauth.unlinked": (d) => ({
    type: "auth_method.removed",
    data: { method: "oauth", ...pick(d, ["providerIds"]) },
  }),
  "user.email_changed": (d) => ({ type: "auth_method.added", data: { method: "email", ...pick(d, ["to"]) } }),
  "user.email_removed": (d) => ({
    type: "auth_method.removed",
    data: { method: "email", ...pick(d, ["from"]) },
  }),
  "mfa.enabled": () => ({ type: "mfa.added", data: { factor: "totp" } }),
  "mfa.removed": () => ({ type: "mfa.removed", data: { factor: "totp" } }),
  "wallet.exported": (d) => ({ type: "wallet.exported", data: pick(d, ["walletId"]) }),
  // The addresses are public; the phrase or key never reaches an audit row.
  "wallet.imported": (d) => ({ type: "wallet.imported", data: pick(d, ["walletId", "kind", "addresses"]) }),
  "grant.created": (d) => ({ type: "grant.created", data: pick(d, ["grantId", "permissions"]) }),
  "grant.revoked": (d) => ({ type: "grant.revoked", data: pick(d, ["grantId"]) }),
  "signing.held": (d) => ({
    type: "activity.consensus_needed",
    data: pick(d, ["activityId", "type", "ruleId"]),
  }),
  // A split wallet's approval signs nothing yet: `waitsFor: "user"` (the user's device completes it).
  "signing.approved": (d) => ({
    type: "activity.approved",
    data: pick(d, ["activityId", "admin", "failed", "waitsFor"]),
  }),
  // An admin's rejection names the admin; the signing policy's own refusal does not.
  "signing.rejected": (d) =>
    d.admin !== undefined
      ? { type: "activity.rejected", data: pick(d, ["activityId", "admin", "ruleId"]) }
      : { type: "policy.denied", data: pick(d, ["activityId", "type", "ruleId"]) },
  "sponsorship.spent": (d) => ({
    type: "sponsorship.spent",
    data: pick(d, ["policyId", "day", "amount", "unit", "operationAdded"]),
  }),
};

export function webhookEventOf(auditEvent: string, details: object | undefined): MappedEvent | null {
  const map = FROM_AUDIT[auditEvent];
  return map ? map((details ?? {}) as Details) : null;
}
