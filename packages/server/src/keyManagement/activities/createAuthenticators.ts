import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { insertAuthenticator } from "../../features/passkeys/authenticatorStore";
import {
  type VerifiedPasskey,
  verifyPasskeyRegistration,
} from "../../features/passkeys/verifyPasskeyRegistration";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import { defineActivity } from "../defineActivity";

interface Prepared {
  passkeys: { passkey: VerifiedPasskey; name: string }[];
  stepUp: StepUpProofUsed;
  /** The verification token's code, spent in the transaction (single use). */
  spendOtpId?: string;
}

/**
 * `create_authenticators`: adds passkeys. A passkey is a way to sign in and a step-up proof, so adding
 * one needs a fresh sign-in first (sessions/stepUp.ts: the same rule as wallet export); each passkey
 * keeps the proof it was added with. Attestations are verified before the transaction.
 */
export const createAuthenticators = defineActivity<"ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", Prepared>({
  type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
  async prepare(ctx, { caller, params }) {
    const app = await ctx.apps.byId(caller.user.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "This user's app no longer exists");
    const { spendOtpId, used } = await requireFreshSignIn(ctx, {
      caller,
      appId: app.id,
      proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
    });
    const passkeys: Prepared["passkeys"] = [];
    for (const a of params.authenticators) {
      passkeys.push({ passkey: await verifyPasskeyRegistration(app, a), name: a.authenticatorName });
    }
    return { passkeys, stepUp: used, ...(spendOtpId ? { spendOtpId } : {}) };
  },
  async run(tx, { caller, prepared }) {
    if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
    const authenticatorIds: string[] = [];
    for (const v of prepared.passkeys) {
      authenticatorIds.push(
        await insertAuthenticator(tx, {
          user: caller.user,
          passkey: v.passkey,
          name: v.name,
          addedWith: prepared.stepUp,
        }),
      );
    }
    await tx.audit(
      "passkey.added",
      {
        appId: caller.user.appId,
        userId: caller.user.id,
        details: { names: prepared.passkeys.map((v) => v.name), stepUp: prepared.stepUp },
      },
      tx.db,
    );
    return { authenticatorIds };
  },
});
