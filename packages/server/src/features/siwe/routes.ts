import { signerApi } from "@latchkey/protocol/schemas";
import type { Hex } from "viem";
import { parseOrThrow } from "../../http/parse";
import { perIpLimit } from "../../http/perIpLimit";
import { appOf } from "../../http/plugins/appApiKey";
import { defineFeature } from "../defineFeature";
import { issueNonce } from "./issueNonce";
import { readSessionToken } from "./readSessionToken";
import { siweJwk } from "./siweKey";
import { verifySignIn } from "./verifySignIn";

/**
 * Sign-In with Ethereum (EIP-4361) for external wallets: a nonce, the verification of the signed message
 * (EOA, ERC-1271, ERC-6492) into a session token, the token's check for the app's backend, and the
 * token key at `GET /.well-known/jwks.json` (public, any origin) for backends that check tokens themselves.
 */
export const siweFeature = defineFeature({
  name: "siwe",
  register(app, ctx) {
    app.post(`/signer${signerApi.siweNonce.path}`, async (req) => {
      const body = parseOrThrow(signerApi.siweNonce.request, req.body ?? {}, "request");
      await perIpLimit(ctx, {
        kind: "siwe-nonce-ip",
        ip: req.ip,
        limit: ctx.limits.siweNoncesPerIp,
        message: "Too many sign-in attempts from this network. Try again later.",
      });
      return issueNonce(ctx, { app: appOf(req), ...body });
    });

    app.post(`/signer${signerApi.siweVerify.path}`, async (req) => {
      const { message, signature } = parseOrThrow(signerApi.siweVerify.request, req.body ?? {}, "request");
      await perIpLimit(ctx, {
        kind: "siwe-verify-ip",
        ip: req.ip,
        limit: ctx.limits.siweVerificationsPerIp,
        message: "Too many sign-in attempts from this network. Try again later.",
      });
      return verifySignIn(ctx, {
        app: appOf(req),
        message,
        signature: signature as Hex,
        issuer: ctx.publicUrl ?? `${req.protocol}://${req.host}`,
        ip: req.ip,
      });
    });

    app.post(`/signer${signerApi.siweSession.path}`, async (req) => {
      const { token } = parseOrThrow(signerApi.siweSession.request, req.body ?? {}, "request");
      return readSessionToken(ctx, { appId: appOf(req).id, token });
    });

    app.get("/.well-known/jwks.json", async (_req, reply) => {
      reply.header("access-control-allow-origin", "*").header("cache-control", "public, max-age=300");
      return { keys: [await siweJwk(ctx)] };
    });
  },
});
