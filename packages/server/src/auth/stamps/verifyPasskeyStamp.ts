import { ErrorCode, passkeyStampChallenge } from "@latchkey/protocol";
import { webauthnStampSchema } from "@latchkey/protocol/schemas";
import { type AuthenticatorTransport, verifyAuthenticationResponse } from "@simplewebauthn/server";
import type { z } from "zod";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";
import { expectedOrigins } from "../../features/passkeys/expectedOrigins";
import type { UserRecord } from "../../users/userStore";

export interface PasskeyCaller {
  user: UserRecord;
  app: App;
  authenticatorId: string;
  credentialId: string;
  /** Applies the assertion's new signature counter; called once every other check has passed. */
  commitCounter(): Promise<void>;
}

/**
 * A passkey stamp (`X-Stamp-WebAuthn`, DESIGN §3.2): an assertion over the body, checked as WebAuthn
 * says (type, challenge = hex(sha256(body)), origin, rpIdHash, user presence, signature, counter) by
 * `verifyAuthenticationResponse`. The caller goes on with the timestamp, organisation, operation and
 * ledger (authenticateStamp.ts).
 */
export async function verifyPasskeyStamp(
  ctx: Pick<ServiceContext, "db" | "apps" | "now">,
  { body, headerValue }: { body: string; headerValue: string },
): Promise<PasskeyCaller> {
  // 1. The header is the assertion's JSON, fields in base64url without padding.
  let parsed: z.infer<typeof webauthnStampSchema>;
  try {
    parsed = webauthnStampSchema.parse(JSON.parse(headerValue));
  } catch {
    throw apiError(ErrorCode.INVALID_STAMP, "The passkey stamp is malformed");
  }
  // 2. The credential is registered; it names the user and the app (the relying party).
  const row = await ctx.db
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
      "users.disabled_at",
    ])
    .where("authenticators.credential_id", "=", parsed.credentialId)
    .executeTakeFirst();
  if (!row) throw apiError(ErrorCode.INVALID_STAMP, "This passkey is not registered");
  if (row.disabled_at != null) throw apiError(ErrorCode.USER_DISABLED, "This user is disabled");
  const app = await ctx.apps.byId(row.app_id);
  if (!app) throw apiError(ErrorCode.INVALID_STAMP, "This passkey's app no longer exists");

  // 3. The assertion: every relying-party step, in WebAuthn's order.
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: {
        id: parsed.credentialId,
        rawId: parsed.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          authenticatorData: parsed.authenticatorData,
          clientDataJSON: parsed.clientDataJson,
          signature: parsed.signature,
          ...(parsed.userHandle ? { userHandle: parsed.userHandle } : {}),
        },
      },
      expectedChallenge: passkeyStampChallenge(body),
      expectedOrigin: expectedOrigins(app.webauthn.origins, parsed.clientDataJson),
      expectedRPID: app.webauthn.rpId,
      credential: {
        id: parsed.credentialId,
        publicKey: new Uint8Array(Buffer.from(row.public_key, "base64url")),
        counter: row.counter,
        transports: JSON.parse(row.transports) as AuthenticatorTransport[],
      },
      requireUserVerification: false,
    });
  } catch (e) {
    // The library's own words stay out of the answer (they quote what was compared); a counter that
    // went backwards gets its own message, since it means a copied passkey.
    if (/counter/i.test((e as Error).message)) {
      throw apiError(
        ErrorCode.INVALID_STAMP,
        "The passkey's signature counter went backwards: it may be a copy (cloned authenticator)",
      );
    }
    throw apiError(ErrorCode.INVALID_STAMP, "The passkey stamp does not verify");
  }
  if (!verification.verified) throw apiError(ErrorCode.INVALID_STAMP, "The passkey stamp does not verify");
  const newCounter = verification.authenticationInfo.newCounter;
  return {
    user: { id: row.user_id, orgId: row.org_id, appId: row.app_id, email: row.email },
    app,
    authenticatorId: row.id,
    credentialId: parsed.credentialId,
    async commitCounter() {
      await ctx.db
        .updateTable("authenticators")
        .set({ counter: newCounter, last_used_at: ctx.now() })
        .where("id", "=", row.id)
        .execute();
    },
  };
}
