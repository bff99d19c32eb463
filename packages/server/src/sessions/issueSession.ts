import { DEFAULT_SESSION_EXPIRATION_SECONDS, ErrorCode, sealCredentialBundle } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import { newP256KeyPair } from "../crypto/p256Session";
import { type Db, inTransaction } from "../db";
import type { SignedInBy } from "../db/schema";
import { apiError } from "../errors";
import type { UserRecord } from "../users/userStore";

export interface IssuedSession {
  apiKeyId: string;
  credentialBundle: string;
  expiresAt: number;
}

/**
 * Makes a session API key for `user` and returns its private key sealed to the browser's target key
 * (DESIGN §3.4). Only the public key is stored; the private key exists here for the time of the seal.
 *
 * @example
 * const { credentialBundle } = await issueSession(ctx, { user, targetPublicKey, name: "otp" });
 */
export async function issueSession(
  ctx: Pick<ServiceContext, "db" | "now" | "random" | "audit">,
  params: {
    user: UserRecord;
    targetPublicKey: string;
    expirationSeconds?: number | undefined;
    name?: string;
    /** The sign-in this session comes from; absent for a key made by another key (not a fresh sign-in). */
    signedInBy?: SignedInBy | undefined;
    /** This session is the one the sign-up that just made `user` gives: recorded as the sign-up's session. */
    signUp?: boolean | undefined;
  },
): Promise<IssuedSession> {
  const { user, targetPublicKey, expirationSeconds, name = "session" } = params;
  // A user an app admin disabled (admin API) gets no session, whichever way they sign in.
  const state = await ctx.db
    .selectFrom("users")
    .select(["disabled_at", "pregenerated_at", "claimed_at"])
    .where("id", "=", user.id)
    .executeTakeFirst();
  if (state?.disabled_at != null) throw apiError(ErrorCode.USER_DISABLED, "This user is disabled");
  const now = ctx.now();
  // A user the app's backend made ahead (pregenerated) is claimed by the first sign-in, which proved the
  // email: the admin API then answers `claimedAt`, and the claim is audited (and a `user.claimed` webhook).
  if (params.signedInBy && state?.pregenerated_at != null && state.claimed_at == null) {
    const signedInBy = params.signedInBy;
    const claim = async (trx: Db) => {
      const claimed = await trx
        .updateTable("users")
        .set({ claimed_at: now })
        .where("id", "=", user.id)
        .where("claimed_at", "is", null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1)
        await ctx.audit(
          "user.claimed",
          { appId: user.appId, userId: user.id, details: { method: signedInBy } },
          trx,
        );
    };
    await inTransaction(ctx.db, claim);
  }
  const { privateKey, publicKeyHex: publicKey } = newP256KeyPair();
  const credentialBundle = await sealCredentialBundle({ plaintext: privateKey, targetPublicKey });
  privateKey.fill(0);
  const apiKeyId = ctx.random.uuid();
  const expiresAt = now + (expirationSeconds ?? DEFAULT_SESSION_EXPIRATION_SECONDS) * 1000;
  await ctx.db
    .insertInto("api_keys")
    .values({
      id: apiKeyId,
      org_id: user.orgId,
      user_id: user.id,
      name: `${name}-${now}`,
      public_key: publicKey,
      kind: "session",
      signed_in_by: params.signedInBy ?? null,
      expires_at: expiresAt,
      created_at: now,
      revoked_at: null,
    })
    .execute();
  // The step-up rule (sessions/stepUp.ts) counts only this session of a social sign-up as fresh, never a
  // later social sign-in to the same minutes-old account.
  if (params.signUp)
    await ctx.db
      .updateTable("users")
      .set({ signup_session_id: apiKeyId })
      .where("id", "=", user.id)
      .where("signup_session_id", "is", null)
      .execute();
  return { apiKeyId, credentialBundle, expiresAt };
}
