import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { insertAuthenticator } from "../../passkeys/authenticatorStore";
import { type VerifiedPasskey, verifyPasskeyRegistration } from "../../passkeys/verifyPasskeyRegistration";
import { defineActivity } from "../defineActivity";

/** `create_authenticators`: adds passkeys; attestations are verified before the transaction. */
export const createAuthenticators = defineActivity<
  "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
  { passkey: VerifiedPasskey; name: string }[]
>({
  type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    const out: { passkey: VerifiedPasskey; name: string }[] = [];
    for (const a of params.authenticators) {
      out.push({ passkey: await verifyPasskeyRegistration(app, a), name: a.authenticatorName });
    }
    return out;
  },
  async run(tx, { caller, prepared }) {
    const authenticatorIds: string[] = [];
    for (const v of prepared) {
      authenticatorIds.push(
        await insertAuthenticator(tx, { user: caller.user, passkey: v.passkey, name: v.name }),
      );
    }
    await tx.audit(
      "passkey.added",
      { appId: caller.user.appId, userId: caller.user.id, details: { names: prepared.map((v) => v.name) } },
      tx.db,
    );
    return { authenticatorIds };
  },
});
