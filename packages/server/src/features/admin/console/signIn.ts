import {
  ADMIN_SESSION_DEFAULT_SECONDS,
  type AdminConsoleResponse,
  compressP256PublicKey,
  ErrorCode,
  fromHex,
  passkeyStampChallenge,
} from "@latchkey/protocol";
import { adminConsoleApi, webauthnStampSchema } from "@latchkey/protocol/schemas";
import { type AuthenticatorTransport, verifyAuthenticationResponse } from "@simplewebauthn/server";
import type { z } from "zod";
import { assertFreshTimestamp } from "../../../auth/stamps/freshness";
import { consumeBody } from "../../../auth/stamps/replayLedger";
import type { ServiceContext } from "../../../context";
import { isUniqueViolation } from "../../../db/uniqueViolation";
import { apiError } from "../../../errors";
import { parseJsonObject, parseOrThrow } from "../../../http/parse";

type Ctx = Pick<ServiceContext, "db" | "now" | "random" | "audit">;

/**
 * `console/sign_in`: an admin's passkey stamps a body naming a P-256 key the browser made; the key becomes
 * an admin session of the passkey's app. Checked in DESIGN §3.2's order:
 *  1. the header is `X-Stamp-WebAuthn` (an assertion's JSON) and its passkey is an admin's (not removed);
 *  2. the assertion verifies: type, challenge = hex(sha256(body)), the origin and relying party the passkey
 *     was enrolled on, user presence and verification, signature, counter;
 *  3. the body is a sign-in body (`type` ADMIN_CONSOLE_SIGN_IN, a compressed P-256 `publicKey`);
 *  4. its `timestampMs` is within 5 minutes before and 1 minute after now;
 *  5. the body was never used before (STAMP_REPLAYED);
 * then the counter moves on and the session is stored (a key is one session's only).
 */
export async function signInToConsole(
  ctx: Ctx,
  params: { body: string; headerValue: string | undefined; ip: string },
): Promise<AdminConsoleResponse<"sign_in">> {
  const { body } = params;
  // 1.
  let stamp: z.infer<typeof webauthnStampSchema>;
  try {
    stamp = webauthnStampSchema.parse(JSON.parse(params.headerValue ?? ""));
  } catch {
    throw apiError(
      ErrorCode.INVALID_STAMP,
      "Console sign-in is stamped by an admin's passkey (X-Stamp-WebAuthn)",
    );
  }
  const row = await ctx.db
    .selectFrom("console_passkeys")
    .innerJoin("console_admins", "console_admins.id", "console_passkeys.admin_id")
    .innerJoin("apps", "apps.id", "console_admins.app_id")
    .select([
      "console_passkeys.id",
      "console_passkeys.public_key",
      "console_passkeys.counter",
      "console_passkeys.transports",
      "console_passkeys.rp_id",
      "console_passkeys.origin",
      "console_admins.id as admin_id",
      "console_admins.name as admin_name",
      "console_admins.revoked_at",
      "apps.id as app_id",
      "apps.name as app_name",
      "apps.org_id",
    ])
    .where("console_passkeys.credential_id", "=", stamp.credentialId)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null)
    throw apiError(ErrorCode.INVALID_STAMP, "This passkey is no console admin's");
  // 2.
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: {
        id: stamp.credentialId,
        rawId: stamp.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          authenticatorData: stamp.authenticatorData,
          clientDataJSON: stamp.clientDataJson,
          signature: stamp.signature,
          ...(stamp.userHandle ? { userHandle: stamp.userHandle } : {}),
        },
      },
      expectedChallenge: passkeyStampChallenge(body),
      expectedOrigin: row.origin,
      expectedRPID: row.rp_id,
      credential: {
        id: stamp.credentialId,
        publicKey: new Uint8Array(Buffer.from(row.public_key, "base64url")),
        counter: Number(row.counter),
        transports: JSON.parse(row.transports) as AuthenticatorTransport[],
      },
      requireUserVerification: true,
    });
  } catch {
    // The library's words stay in the service (they quote what was compared).
    throw apiError(ErrorCode.INVALID_STAMP, "The passkey stamp does not verify");
  }
  if (!verification.verified) throw apiError(ErrorCode.INVALID_STAMP, "The passkey stamp does not verify");
  // 3.
  const request = parseOrThrow(adminConsoleApi.sign_in.request, parseJsonObject(body, "body"), "request");
  try {
    compressP256PublicKey(fromHex(request.publicKey));
  } catch {
    throw apiError(ErrorCode.INVALID_PUBLIC_KEY, "publicKey is not a P-256 point");
  }
  // 4.
  assertFreshTimestamp(request.timestampMs, ctx.now(), "console sign-in");
  // 5.
  await consumeBody(ctx, body);

  const now = ctx.now();
  const sessionId = ctx.random.uuid();
  const expiresAt = now + (request.expirationSeconds ?? ADMIN_SESSION_DEFAULT_SECONDS) * 1000;
  await ctx.db
    .updateTable("console_passkeys")
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: now })
    .where("id", "=", row.id)
    .execute();
  try {
    await ctx.db
      .insertInto("console_sessions")
      .values({
        id: sessionId,
        admin_id: row.admin_id,
        public_key: request.publicKey,
        expires_at: expiresAt,
        created_at: now,
        revoked_at: null,
      })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) throw apiError(ErrorCode.INVALID_PUBLIC_KEY, "This key is already a session's");
    throw e;
  }
  await ctx.audit("admin.console_signed_in", {
    appId: row.app_id,
    ip: params.ip,
    details: { admin: row.admin_name, sessionId },
  });
  return {
    sessionId,
    expiresAt,
    admin: {
      adminId: row.admin_id,
      name: row.admin_name,
      appId: row.app_id,
      appName: row.app_name,
      organizationId: row.org_id,
    },
  };
}
