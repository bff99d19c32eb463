import {
  ErrorCode,
  type MultiFactorOperationType,
  type MultiFactorsResponse,
  STEP_UP_MAX_AGE_MS,
} from "@latchkey/protocol";
import { multiFactorOperations, operationEnvelopeSchema, signerApi } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import { parseOrThrow } from "../../http/parse";
import { route, type StampedRouteInput, stampedRoute } from "../../http/route";
import { requireFreshSignIn, spendStepUpToken } from "../../sessions/stepUp";
import { defineFeature } from "../defineFeature";
import { checkFactorCode } from "./checkFactorCode";
import { deleteFactors, factorProof, listFactors, setFactorProof } from "./factorStore";
import { requestTotp } from "./requestTotp";
import { validateMultiFactors } from "./validateMultiFactors";

/**
 * The parameters of a stamped MFA change come from the signed body (F2); an outer field sent beside it
 * (the reference shape) must say the same thing.
 */
function signedParameters<T extends MultiFactorOperationType>(
  caller: StampedCaller,
  type: T,
  body: { stampedRequest: unknown },
): z.output<(typeof multiFactorOperations)[T]> {
  const envelope = parseOrThrow(operationEnvelopeSchema, caller.body, "stamped body");
  const schema: z.ZodType = multiFactorOperations[type];
  const params = parseOrThrow(schema, envelope.parameters, "parameters") as z.output<
    (typeof multiFactorOperations)[T]
  >;
  const { stampedRequest: _, ...outer } = body;
  const signed = params as Record<string, unknown>;
  for (const [key, value] of Object.entries(outer)) {
    if (value === undefined) continue;
    if (JSON.stringify(signed[key]) !== JSON.stringify(value)) {
      throw apiError(ErrorCode.STAMP_WRONG_OPERATION, `${key} differs from the one the stamp signed`);
    }
  }
  return params;
}

/** A passkey may stamp a change to the factors: it is a step-up proof (sessions/stepUp.ts). */
const PASSKEY = { passkey: { allowRootOrg: false } };

/**
 * The second factor: list, add (request + verify), remove, and redeem an MFA_REQUIRED sign-in. Adding
 * and removing a factor change how the user signs in, so each needs a fresh sign-in first
 * (requireFreshSignIn, the rule wallet export uses): a verify is covered by its request's proof while
 * that is younger than STEP_UP_MAX_AGE_MS, else it needs its own. The code that verifies the new factor
 * proves nothing.
 */
export const mfaFeature = defineFeature({
  name: "mfa",
  register(app, ctx) {
    stampedRoute(app, ctx, signerApi.authListMultiFactors, async ({ caller }) => ({
      multiFactors: await listFactors(ctx, { userId: caller.user.id }),
    }));

    stampedRoute(
      app,
      ctx,
      signerApi.authRequestMultiFactor,
      async ({ body, caller, app }) => {
        const p = signedParameters(caller, "OPERATION_TYPE_REQUEST_MULTI_FACTOR", body);
        const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof: p });
        if (stepUp.spendOtpId) await spendStepUpToken(ctx, stepUp.spendOtpId);
        return requestTotp(ctx, { app, user: caller.user, addedWith: stepUp.used });
      },
      PASSKEY,
    );

    stampedRoute(app, ctx, signerApi.authVerifyMultiFactor, verifyFactor, PASSKEY);

    stampedRoute(
      app,
      ctx,
      signerApi.authDeleteMultiFactors,
      async ({ body, caller }) => {
        const p = signedParameters(caller, "OPERATION_TYPE_DELETE_MULTI_FACTORS", body);
        const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof: p });
        if (stepUp.spendOtpId) await spendStepUpToken(ctx, stepUp.spendOtpId);
        return {
          multiFactors: await deleteFactors(ctx, {
            user: caller.user,
            multiFactorIds: p.multiFactorIds,
            stepUp: stepUp.used,
          }),
        };
      },
      PASSKEY,
    );

    route(app, signerApi.authValidateMultiFactors, ({ body, app, ip }) =>
      validateMultiFactors(ctx, {
        app,
        encryptedPayload: body.encryptedPayload,
        multiFactors: body.multiFactors,
        ip,
      }),
    );

    /** Confirms a factor; its request's step-up proof covers this while young, else it brings its own. */
    async function verifyFactor({
      body,
      caller,
      ip,
    }: StampedRouteInput<typeof signerApi.authVerifyMultiFactor>): Promise<MultiFactorsResponse> {
      const p = signedParameters(caller, "OPERATION_TYPE_VERIFY_MULTI_FACTOR", body);
      const userId = caller.user.id;
      const factor = await factorProof(ctx, { userId, factorId: p.multiFactorId });
      if (!factor) throw apiError(ErrorCode.MFA_FACTOR_NOT_FOUND, "MFA factor not found");
      // The request's proof covers its verify while young; otherwise this verify brings its own (a proof
      // by the factor being verified is refused: it is not verified yet).
      const covered =
        factor.addedWith !== null && factor.createdAt >= ctx.now() - STEP_UP_MAX_AGE_MS
          ? factor.addedWith
          : undefined;
      const stepUp = covered
        ? undefined
        : await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof: p });
      await checkFactorCode(ctx, {
        userId,
        factorId: p.multiFactorId,
        code: p.multiFactorCode,
        allowUnverified: true,
      });
      if (stepUp?.spendOtpId) await spendStepUpToken(ctx, stepUp.spendOtpId);
      if (stepUp) await setFactorProof(ctx, { factorId: p.multiFactorId, addedWith: stepUp.used });
      await ctx.audit("mfa.enabled", {
        appId: caller.user.appId,
        userId,
        ip,
        details: { stepUp: covered ?? stepUp?.used },
      });
      return { multiFactors: await listFactors(ctx, { userId }) };
    }
  },
});
