import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/uniqueViolation";
import { apiError } from "../errors";
import type { UserRecord } from "../users/userStore";
import type { VerifiedPasskey } from "./verifyPasskeyRegistration";

/**
 * Stores a verified passkey for the user. ("Passkey" in the product, "authenticator" on the wire and in
 * the table: the same thing.)
 */
export async function insertAuthenticator(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: { user: UserRecord; passkey: VerifiedPasskey; name: string },
): Promise<string> {
  const { user, passkey, name } = params;
  const id = ctx.random.uuid();
  try {
    await ctx.db
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
        created_at: ctx.now(),
        last_used_at: null,
      })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) throw apiError(ErrorCode.PASSKEY_EXISTS, "This passkey is already registered");
    throw e;
  }
  return id;
}
