import { ErrorCode, type MultiFactorOperationType } from "@latchkey/protocol";
import { multiFactorOperations, operationEnvelopeSchema, signerApi } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import { validateMultiFactors } from "../../factors/pendingSignIn";
import { checkFactorCode, deleteFactors, listFactors, requestTotp } from "../../factors/totpFactors";
import { parseOrThrow } from "../../http/parse";
import { appOf } from "../../http/plugins/appApiKey";
import { unwrapStampedRequest } from "../../http/stampedRequest";
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

/** The second factor: list, add (request + verify), remove, and redeem an MFA_REQUIRED sign-in. */
export const mfaFeature = defineFeature({
  name: "mfa",
  register(app, ctx) {
    app.post(`/signer${signerApi.authListMultiFactors.path}`, async (req) => {
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authListMultiFactors);
      return { multiFactors: await listFactors(ctx, { userId: caller.user.id }) };
    });

    app.post(`/signer${signerApi.authRequestMultiFactor.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authRequestMultiFactor.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authRequestMultiFactor);
      signedParameters(caller, "OPERATION_TYPE_REQUEST_MULTI_FACTOR", {
        multiFactorType: outer.multiFactorType,
      });
      return requestTotp(ctx, { app: appOf(req), user: caller.user });
    });

    app.post(`/signer${signerApi.authVerifyMultiFactor.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authVerifyMultiFactor.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authVerifyMultiFactor);
      const p = signedParameters(caller, "OPERATION_TYPE_VERIFY_MULTI_FACTOR", {
        multiFactorId: outer.multiFactorId,
        multiFactorCode: outer.multiFactorCode,
      });
      await checkFactorCode(ctx, {
        userId: caller.user.id,
        factorId: p.multiFactorId,
        code: p.multiFactorCode,
        allowUnverified: true,
      });
      await ctx.audit("mfa.enabled", { appId: caller.user.appId, userId: caller.user.id, ip: req.ip });
      return { multiFactors: await listFactors(ctx, { userId: caller.user.id }) };
    });

    app.post(`/signer${signerApi.authDeleteMultiFactors.path}`, async (req) => {
      const outer = parseOrThrow(signerApi.authDeleteMultiFactors.request, req.body ?? {}, "request");
      const { caller } = await unwrapStampedRequest(ctx, req, signerApi.authDeleteMultiFactors);
      const p = signedParameters(caller, "OPERATION_TYPE_DELETE_MULTI_FACTORS", {
        multiFactorIds: outer.multiFactorIds,
      });
      return {
        multiFactors: await deleteFactors(ctx, { user: caller.user, multiFactorIds: p.multiFactorIds }),
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
