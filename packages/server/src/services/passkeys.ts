import { createHash, randomUUID } from "node:crypto";
import {
  ErrorCode,
  type passkeyRegistrationSchema,
  STAMP_MAX_AGE_MS,
  STAMP_MAX_FUTURE_MS,
  webauthnStampSchema,
} from "@latchkey/protocol";
import {
  type AuthenticatorTransport,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { z } from "zod";
import type { Db } from "../db";
import { ApiError, unauthorized } from "../errors";
import type { App, AppDirectory } from "./apps";
import { assertFreshTimestamp } from "./stamps";
import type { UserRecord } from "./users";

/** COSE algorithm ids the spec allows: ES256 and RS256. */
const SUPPORTED_ALGORITHMS = [-7, -257];

export interface VerifiedPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  aaguid: string;
}

/**
 * Verifies a registration (attestation) against the app's relying party: type, the client's challenge,
 * origin, rpIdHash, flags and the attestation statement (all by `verifyRegistrationResponse`).
 */
export async function verifyPasskeyRegistration(
  app: App,
  reg: z.output<typeof passkeyRegistrationSchema>,
): Promise<VerifiedPasskey> {
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: {
        id: reg.attestation.credentialId,
        rawId: reg.attestation.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: reg.attestation.clientDataJson,
          attestationObject: reg.attestation.attestationObject,
          transports: reg.attestation.transports as AuthenticatorTransport[],
        },
      },
      expectedChallenge: reg.challenge.replace(/=+$/, ""),
      expectedOrigin: app.webauthn.origins,
      expectedRPID: app.webauthn.rpId,
      // User verification is "preferred" (spec §5): asked for, not required.
      requireUserVerification: false,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (e) {
    throw new ApiError(
      400,
      ErrorCode.PASSKEY_VERIFICATION_FAILED,
      `Passkey registration failed: ${(e as Error).message}`,
    );
  }
  if (!result.verified)
    throw new ApiError(400, ErrorCode.PASSKEY_VERIFICATION_FAILED, "Passkey registration failed");
  const { credential, aaguid } = result.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    transports: reg.attestation.transports,
    aaguid,
  };
}

export async function insertAuthenticator(
  db: Db,
  user: UserRecord,
  passkey: VerifiedPasskey,
  name: string,
  now: number,
): Promise<string> {
  const id = randomUUID();
  try {
    await db
      .insertInto("authenticators")
      .values({
        id,
        app_id: user.appId,
        org_id: user.orgId,
        user_id: user.id,
        credential_id: passkey.credentialId,
        public_key: passkey.publicKey,
        counter: passkey.counter,
        transports: JSON.stringify(passkey.transports),
        aaguid: passkey.aaguid,
        name,
        created_at: now,
        last_used_at: null,
      })
      .execute();
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === "23505" || /UNIQUE/.test(err.message ?? "")) {
      throw new ApiError(409, ErrorCode.PASSKEY_EXISTS, "This passkey is already registered");
    }
    throw e;
  }
  return id;
}

/** The WebAuthn challenge a passkey stamp signs: the UTF-8 bytes of hex(sha256(body)), base64url. */
export function stampChallenge(body: string): string {
  return Buffer.from(createHash("sha256").update(body).digest("hex"), "utf8").toString("base64url");
}

/**
 * Records a stamp signature as used, so the same stamp is never accepted twice within its window.
 * Old records are pruned now and then.
 */
const stampHash = (signature: string) => createHash("sha256").update(signature).digest("base64url");

export async function assertStampUnused(db: Db, signature: string): Promise<void> {
  const seen = await db
    .selectFrom("stamp_replays")
    .select("hash")
    .where("hash", "=", stampHash(signature))
    .executeTakeFirst();
  if (seen) throw unauthorized("This stamp was already used", ErrorCode.STAMP_REPLAYED);
}

export async function consumeStamp(db: Db, signature: string, now: number): Promise<void> {
  const hash = stampHash(signature);
  const inserted = await db
    .insertInto("stamp_replays")
    .values({ hash, expires_at: now + STAMP_MAX_AGE_MS + STAMP_MAX_FUTURE_MS })
    .onConflict((oc) => oc.column("hash").doNothing())
    .returning("hash")
    .executeTakeFirst();
  if (!inserted) throw unauthorized("This stamp was already used", ErrorCode.STAMP_REPLAYED);
  if (Math.random() < 0.01) await db.deleteFrom("stamp_replays").where("expires_at", "<", now).execute();
}

export interface PasskeyCaller {
  user: UserRecord;
  app: App;
  authenticatorId: string;
  credentialId: string;
}

/**
 * A passkey stamp (`X-Stamp-WebAuthn`) is an assertion over the body: the relying-party steps are
 * checked by `verifyAuthenticationResponse` (type, challenge = the body's hash, origin, rpIdHash, UP,
 * signature, counter); then the body's timestamp must be within the window, and the stamp is single use.
 */
export async function verifyPasskeyStamp(
  db: Db,
  apps: AppDirectory,
  args: { body: string; headerValue: string; now: number; timestampMs: unknown; submit: boolean },
): Promise<PasskeyCaller> {
  let parsed: z.infer<typeof webauthnStampSchema>;
  try {
    parsed = webauthnStampSchema.parse(JSON.parse(args.headerValue));
  } catch {
    throw unauthorized("The passkey stamp is malformed", ErrorCode.INVALID_STAMP);
  }
  const credentialId = parsed.credentialId.replace(/=+$/, "");
  const row = await db
    .selectFrom("authenticators")
    .innerJoin("users", "users.id", "authenticators.user_id")
    .select([
      "authenticators.id",
      "authenticators.app_id",
      "authenticators.public_key",
      "authenticators.counter",
      "authenticators.transports",
      "users.id as user_id",
      "users.org_id",
      "users.email",
    ])
    .where("authenticators.credential_id", "=", credentialId)
    .executeTakeFirst();
  if (!row) throw unauthorized("This passkey is not registered", ErrorCode.INVALID_STAMP);
  const app = await apps.byId(row.app_id);
  if (!app) throw unauthorized("This passkey's app no longer exists", ErrorCode.INVALID_STAMP);
  if (!args.submit) await assertStampUnused(db, parsed.signature);

  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: {
        id: credentialId,
        rawId: credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          authenticatorData: parsed.authenticatorData,
          clientDataJSON: parsed.clientDataJson,
          signature: parsed.signature,
          ...(parsed.userHandle ? { userHandle: parsed.userHandle } : {}),
        },
      },
      expectedChallenge: stampChallenge(args.body),
      expectedOrigin: app.webauthn.origins,
      expectedRPID: app.webauthn.rpId,
      credential: {
        id: credentialId,
        publicKey: new Uint8Array(Buffer.from(row.public_key, "base64url")),
        counter: row.counter,
        transports: JSON.parse(row.transports) as AuthenticatorTransport[],
      },
      requireUserVerification: false,
    });
  } catch (e) {
    throw unauthorized(`The passkey stamp does not verify: ${(e as Error).message}`, ErrorCode.INVALID_STAMP);
  }
  if (!verification.verified)
    throw unauthorized("The passkey stamp does not verify", ErrorCode.INVALID_STAMP);

  assertFreshTimestamp(args.timestampMs, args.now, "passkey-stamped requests");

  // Queries are single use; a submit stays idempotent through its activity's fingerprint instead.
  if (!args.submit) await consumeStamp(db, parsed.signature, args.now);
  await db
    .updateTable("authenticators")
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: args.now })
    .where("id", "=", row.id)
    .execute();
  return {
    user: { id: row.user_id, orgId: row.org_id, appId: row.app_id, email: row.email },
    app,
    authenticatorId: row.id,
    credentialId,
  };
}
