import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import type { SigningPreview } from "@latchkey/protocol";
import {
  fromHex,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { formatUnits } from "viem";
import type { Db } from "../../db";
import { previewFromStored } from "../../simulation/preview";
import { approvalsOf } from "../toActivity";

/**
 * The operator's side of signing policies (`latchkey activity …`, `latchkey admin-key create`): list what
 * an app's policy holds, straight from the database; approve or reject one through the service, stamped
 * by an admin key exactly as an app's backend would (the service checks the key against the app's
 * `signingPolicy.adminKeys`).
 */

/** What `latchkey activity list` prints for each held activity. */
export interface HeldActivitySummary {
  activityId: string;
  fingerprint: string;
  organizationId: string;
  userId: string;
  email: string | null;
  type: string;
  createdAt: string;
  reason: string;
  intent: unknown;
  /** Split custody: approved, waiting for the user's device until this time (ISO); absent otherwise. */
  approvedUntil?: string;
  /** What it does, its simulation and the rule that held it, as read when it was asked (issue 46). */
  preview?: SigningPreview;
  /** The approvals it has (admins' names) and needs (`approvals.required`). */
  approvals: { approved: string[]; required: number };
}

/**
 * The lines `latchkey activity list` prints of a held activity's preview and approvals: the summary
 * (indented by depth), the simulation, the rule and "1 of 2 approvals", as the console shows them.
 */
export function describeHeld(a: HeldActivitySummary): string[] {
  const out: string[] = [];
  const p = a.preview;
  if (p) {
    out.push(p.summary.title);
    for (const line of p.summary.lines) out.push(`${"  ".repeat(line.depth + 1)}${line.text}`);
    for (const w of p.summary.warnings) out.push(`  ! ${w}`);
    const sim = p.simulation;
    if (sim.status === "unavailable")
      out.push(`Simulation: unavailable (${sim.reason}${sim.message ? `: ${sim.message}` : ""})`);
    else if (sim.reverts) out.push(`Simulation: reverts${sim.revertReason ? ` (${sim.revertReason})` : ""}`);
    else if (sim.balanceChanges.length === 0) out.push("Simulation: no balance changes");
    else
      out.push(
        `Simulation: ${sim.balanceChanges
          .map((c) => {
            const delta = BigInt(c.delta);
            const decimals = c.asset === "native" ? 18 : c.decimals;
            const amount = decimals === undefined ? delta.toString() : formatUnits(delta, decimals);
            const sign = delta > 0n ? "+" : "";
            return `${sign}${amount} ${c.symbol ?? (c.asset === "native" ? "native" : c.asset)}`;
          })
          .join(", ")}`,
      );
    if (p.policy.ruleId)
      out.push(`Rule: ${p.policy.ruleId}${p.policy.description ? ` (${p.policy.description})` : ""}`);
  }
  const { approved, required } = a.approvals;
  out.push(
    `${approved.length} of ${required} approval${required === 1 ? "" : "s"}${
      approved.length ? `: ${approved.join(", ")}` : ""
    }`,
  );
  return out;
}

/** The app's activities waiting in CONSENSUS_NEEDED, oldest first, and the app's organisation id. */
export async function listHeldActivities(
  db: Db,
  appId: string,
): Promise<{ appOrganizationId: string; held: HeldActivitySummary[] }> {
  const app = await db
    .selectFrom("apps")
    .select(["org_id", "signing_policy"])
    .where("id", "=", appId)
    .executeTakeFirst();
  if (!app) throw new Error(`No app ${appId}`);
  const policy = app.signing_policy
    ? (JSON.parse(app.signing_policy) as { approvals?: { required?: number } })
    : undefined;
  const required = policy?.approvals?.required ?? 1;
  const rows = await db
    .selectFrom("activities")
    .innerJoin("users", "users.id", "activities.user_id")
    .select([
      "activities.id",
      "activities.fingerprint",
      "activities.org_id",
      "activities.user_id",
      "activities.type",
      "activities.intent",
      "activities.failure",
      "activities.created_at",
      "activities.approval_expires_at",
      "activities.preview",
      "activities.approvals",
      "users.email",
    ])
    .where("users.app_id", "=", appId)
    .where("activities.status", "=", "ACTIVITY_STATUS_CONSENSUS_NEEDED")
    .orderBy("activities.created_at")
    .execute();
  return {
    appOrganizationId: app.org_id,
    held: rows.map((r) => ({
      activityId: r.id,
      fingerprint: r.fingerprint,
      organizationId: r.org_id,
      userId: r.user_id,
      email: r.email,
      type: r.type,
      createdAt: new Date(Number(r.created_at)).toISOString(),
      reason: r.failure ? (JSON.parse(r.failure) as { message: string }).message : "",
      intent: JSON.parse(r.intent) as unknown,
      ...(r.approval_expires_at != null
        ? { approvedUntil: new Date(Number(r.approval_expires_at)).toISOString() }
        : {}),
      ...(previewFromStored(r.preview) ? { preview: previewFromStored(r.preview) as SigningPreview } : {}),
      approvals: { approved: approvalsOf(r).map((x) => x.name), required },
    })),
  };
}

/** A P-256 admin key: the private key (hex) goes to `file` (mode 0600); the public key is returned. */
export function createAdminKeyFile(file: string): string {
  const privateKey = generateP256PrivateKey();
  writeFileSync(file, `${toHex(privateKey)}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return toHex(p256PublicKeyFromPrivate(privateKey, true));
}

/** Reads an admin private key: 64 hex digits (0x optional). */
export function readAdminKey(text: string): Uint8Array {
  const hex = text.trim().replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("An admin key is 64 hex digits (a P-256 private key)");
  return fromHex(hex);
}

export function readAdminKeyFile(file: string): Uint8Array {
  return readAdminKey(readFileSync(file, "utf8"));
}

/**
 * Approves or rejects a held activity through the service (`/public/v1/submit/{approve,reject}_activity`),
 * stamped by the admin key; answers the service's JSON (the decision's activity, or its error).
 */
export async function decideThroughService(params: {
  serviceUrl: string;
  decision: "approve" | "reject";
  organizationId: string;
  activityId: string;
  adminKey: Uint8Array;
  now?: number;
}): Promise<{ ok: boolean; status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({
    type: params.decision === "approve" ? "ACTIVITY_TYPE_APPROVE_ACTIVITY" : "ACTIVITY_TYPE_REJECT_ACTIVITY",
    timestampMs: String(params.now ?? Date.now()),
    organizationId: params.organizationId,
    parameters: { activityId: params.activityId },
  });
  const stamp = stampWithPrivateKey(body, params.adminKey);
  const url = `${params.serviceUrl.replace(/\/+$/, "")}/public/v1/submit/${params.decision}_activity`;
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
    body,
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { message: text };
  }
  return { ok: res.ok, status: res.status, body: json };
}
