import { ErrorCode } from "@latchkey/protocol";
import type { ServiceContext } from "../../context";
import { isUniqueViolation } from "../../db/uniqueViolation";
import { apiError } from "../../errors";
import type { UserRecord } from "../../users/userStore";
import type { VerifiedPasskey } from "./verifyPasskeyRegistration";

/**
 * Stores a verified passkey for the user. ("Passkey" in the product, "authenticator" on the wire and in
 * the table: the same thing.) `addedWith` is the step-up proof it was added with ("signup" for the
 * passkey that created the user): a passkey stored without one never counts as a step-up proof.
 */
export async function insertAuthenticator(
  ctx: Pick<ServiceContext, "db" | "now" | "random">,
  params: { user: UserRecord; passkey: VerifiedPasskey; name: string; addedWith: string | null },
): Promise<string> {
  const { user, passkey, name, addedWith } = params;
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
        added_with: addedWith,
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
