import { ErrorCode, type MultiFactorOperationType, STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import { multiFactorOperations, operationEnvelopeSchema, signerApi } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import { validateMultiFactors } from "../../factors/pendingSignIn";
import {
  checkFactorCode,
  deleteFactors,
  factorProof,
  listFactors,
  requestTotp,
  setFactorProof,
} from "../../factors/totpFactors";
import { parseOrThrow } from "../../http/parse";
import { appOf } from "../../http/plugins/appApiKey";
import { unwrapStampedRequest } from "../../http/stampedRequest";
import { requireFreshSignIn, spendStepUpToken } from "../../sessions/stepUp";
import { defineFeature } from "../defineFeature";

/**
 * The parameters of a stamped MFA change come from the signed body (F2); an outer field sent beside it
 * (the reference shape) must say the same thing.
 */
function signedParameters<T extends MultiFactorOperationType>(
  caller: StampedCaller,
  type: T,
  outer: Record<string, unknown>,
): z.output<(typeof multiFactorOperations)[T]> {
  const envelope = parseOrThrow(operationEnvelopeSchema, caller.body, "stamped body");
  const schema: z.ZodType = multiFactorOperations[type];
  const params = parseOrThrow(schema, envelope.parameters, "parameters") as z.output<
    (typeof multiFactorOperations)[T]
  >;
  for (const [key, value] of Object.entries(outer)) {
    if (value === undefined) continue;
    const signed = (params as Record<string, unknown>)[key];
    if (JSON.stringify(signed) !== JSON.stringify(value)) {
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
    app.post(`/signer${signerApi.authListMultiFactors.path}`, async (req) => {
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authListMultiFactors);
      return { multiFactors: await listFactors(ctx, { userId: caller.user.id }) };
    });

    app.post(`/signer${signerApi.authRequestMultiFactor.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authRequestMultiFactor.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authRequestMultiFactor, PASSKEY);
      const p = signedParameters(caller, "OPERATION_TYPE_REQUEST_MULTI_FACTOR", {
        multiFactorType: outer.multiFactorType,
      });
      const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof: p });
      if (stepUp.spendOtpId) await spendStepUpToken(ctx, stepUp.spendOtpId);
      return requestTotp(ctx, { app: appOf(req), user: caller.user, addedWith: stepUp.used });
    });

    app.post(`/signer${signerApi.authVerifyMultiFactor.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authVerifyMultiFactor.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authVerifyMultiFactor, PASSKEY);
      const p = signedParameters(caller, "OPERATION_TYPE_VERIFY_MULTI_FACTOR", {
        multiFactorId: outer.multiFactorId,
        multiFactorCode: outer.multiFactorCode,
      });
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
        ip: req.ip,
        details: { stepUp: covered ?? stepUp?.used },
      });
      return { multiFactors: await listFactors(ctx, { userId }) };
    });

    app.post(`/signer${signerApi.authDeleteMultiFactors.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authDeleteMultiFactors.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authDeleteMultiFactors, PASSKEY);
      const p = signedParameters(caller, "OPERATION_TYPE_DELETE_MULTI_FACTORS", {
        multiFactorIds: outer.multiFactorIds,
      });
      const stepUp = await requireFreshSignIn(ctx, { caller, appId: caller.user.appId, proof: p });
      if (stepUp.spendOtpId) await spendStepUpToken(ctx, stepUp.spendOtpId);
      return {
        multiFactors: await deleteFactors(ctx, {
          user: caller.user,
          multiFactorIds: p.multiFactorIds,
          stepUp: stepUp.used,
        }),
      };
    });

    app.post(`/signer${signerApi.authValidateMultiFactors.path}`, async (req) => {
      const p = parseOrThrow(signerApi.authValidateMultiFactors.request, req.body ?? {}, "request");
      return validateMultiFactors(ctx, {
        app: appOf(req),
        encryptedPayload: p.encryptedPayload,
        multiFactors: p.multiFactors,
        ip: req.ip,
      });
    });
  },
});
