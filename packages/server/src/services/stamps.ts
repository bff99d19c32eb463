import { decodeStamp, ErrorCode, STAMP_MAX_AGE_MS, STAMP_MAX_FUTURE_MS } from "@latchkey/protocol";
import { verifyP256Der } from "../crypto/stamp-verify";
import type { Db } from "../db";
import { ApiError, unauthorized } from "../errors";
import type { AppDirectory } from "./apps";
import { verifyPasskeyStamp } from "./passkeys";
import type { UserRecord } from "./users";

export interface StampedCaller {
  user: UserRecord;
  /** The session or API key that stamped; absent for a passkey stamp. */
  apiKeyId?: string;
  /** Set for a passkey stamp. */
  passkey?: { authenticatorId: string; credentialId: string };
  /** True when a passkey stamp addressed the app's root organisation (passkey login). */
  viaRootOrg?: boolean;
  /** The parsed body the stamp covers. */
  body: Record<string, unknown>;
}

/**
 * Checks an API-key stamp (DESIGN §3.2) over the exact body string received, then who signed it:
 * the key must exist, be unrevoked and unexpired, and belong to the organisation the body addresses.
 * Submit bodies must also carry a `timestampMs` inside the window.
 */
export async function authenticateStamp(
  db: Db,
  args: {
    body: string;
    headerName: string;
    headerValue: string;
    submit: boolean;
    now: number;
    /** Passkey stamps need the apps (relying party); without it they are refused. */
    apps?: AppDirectory;
    /** Whether a passkey stamp may address the app's root organisation (passkey login by whoami). */
    allowRootOrg?: boolean;
  },
): Promise<StampedCaller> {
  if (args.headerName.toLowerCase() === "x-stamp-webauthn") {
    if (!args.apps)
      throw unauthorized("Passkey stamps are not accepted on this endpoint", ErrorCode.INVALID_STAMP);
    const record = parseBody(args.body);
    const pk = await verifyPasskeyStamp(db, args.apps, {
      body: args.body,
      headerValue: args.headerValue,
      now: args.now,
      timestampMs: record.timestampMs,
      submit: args.submit,
    });
    const viaRootOrg = record.organizationId === pk.app.orgId;
    if (record.organizationId !== pk.user.orgId && !(viaRootOrg && args.allowRootOrg)) {
      throw new ApiError(403, ErrorCode.FORBIDDEN, "The passkey does not belong to this organization");
    }
    return {
      user: pk.user,
      passkey: { authenticatorId: pk.authenticatorId, credentialId: pk.credentialId },
      viaRootOrg,
      body: record,
    };
  }
  if (args.headerName.toLowerCase() !== "x-stamp") {
    throw unauthorized(`Unknown stamp header ${args.headerName}`, ErrorCode.INVALID_STAMP);
  }
  let stamp: ReturnType<typeof decodeStamp>;
  try {
    stamp = decodeStamp(args.headerValue);
  } catch {
    throw unauthorized("The stamp is malformed", ErrorCode.INVALID_STAMP);
  }
  const keys = await stampKeys(db, stamp.publicKey.toLowerCase());
  if (keys.length === 0) throw unauthorized("The stamp's key is unknown or revoked", ErrorCode.INVALID_STAMP);
  if (!verifyP256Der(args.body, stamp.publicKey.toLowerCase(), stamp.signature)) {
    throw unauthorized("The stamp's signature does not match the body", ErrorCode.INVALID_STAMP);
  }
  const live = keys.find((k) => k.expires_at === null || k.expires_at > args.now);
  if (!live) throw unauthorized("The session has expired", ErrorCode.SESSION_EXPIRED);

  const record = parseBody(args.body);
  if (record.organizationId !== live.org_id) {
    throw new ApiError(403, ErrorCode.FORBIDDEN, "The stamp's key does not belong to this organization");
  }
  if (args.submit) assertFreshTimestamp(record.timestampMs, args.now, "submit requests");
  return {
    user: { id: live.user_id, orgId: live.org_id, appId: live.app_id, email: live.email },
    apiKeyId: live.id,
    body: record,
  };
}

function parseBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, ErrorCode.INVALID_JSON, "The stamped body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(400, ErrorCode.INVALID_REQUEST, "The stamped body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** A stamped body's `timestampMs` must be within 5 minutes before and 1 minute after now (DESIGN §3.2). */
export function assertFreshTimestamp(timestampMs: unknown, now: number, what: string): void {
  const ts = typeof timestampMs === "string" ? Number(timestampMs) : Number.NaN;
  if (!Number.isFinite(ts))
    throw new ApiError(400, ErrorCode.INVALID_REQUEST, `timestampMs is required on ${what}`);
  if (ts < now - STAMP_MAX_AGE_MS) throw unauthorized("The request is too old", ErrorCode.STAMP_EXPIRED);
  if (ts > now + STAMP_MAX_FUTURE_MS) {
    throw unauthorized("The request's timestamp is in the future", ErrorCode.STAMP_IN_FUTURE);
  }
}

type StampKeyRow = {
  id: string;
  expires_at: number | null;
  org_id: string;
  user_id: string;
  app_id: string;
  email: string | null;
};

/**
 * The unrevoked keys with this public key, cached for a second: the lookup is half the database work of a
 * signature. A revocation clears this process's cache at once (`forgetStampKeys`); another process may
 * accept a revoked key for at most that second. Expiry is checked on every request, never cached.
 */
const stampKeyCache = new Map<string, { rows: StampKeyRow[]; at: number }>();
const STAMP_KEY_TTL_MS = 1000;

async function stampKeys(db: Db, publicKey: string): Promise<StampKeyRow[]> {
  const now = Date.now();
  const hit = stampKeyCache.get(publicKey);
  if (hit && now - hit.at < STAMP_KEY_TTL_MS) return hit.rows;
  const rows = await db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .select([
      "api_keys.id",
      "api_keys.expires_at",
      "api_keys.org_id",
      "users.id as user_id",
      "users.app_id",
      "users.email",
    ])
    .where("api_keys.public_key", "=", publicKey)
    .where("api_keys.revoked_at", "is", null)
    .execute();
  if (rows.length > 0) {
    if (stampKeyCache.size >= 10_000) stampKeyCache.clear();
    stampKeyCache.set(publicKey, { rows, at: now });
  }
  return rows;
}

/** Called on every key revocation. */
export function forgetStampKeys(): void {
  stampKeyCache.clear();
}
