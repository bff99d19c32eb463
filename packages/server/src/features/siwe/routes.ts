import { signerApi } from "@latchkey/protocol/schemas";
import type { Hex } from "viem";
import { perIpLimit } from "../../http/perIpLimit";
import { route } from "../../http/route";
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
    route(app, signerApi.siweNonce, async ({ body, app, ip }) => {
      await perIpLimit(ctx, "siweNonce", ip);
      return issueNonce(ctx, { app, ...body });
    });

    route(app, signerApi.siweVerify, async ({ body, app, ip, req }) => {
      await perIpLimit(ctx, "siweVerify", ip);
      return verifySignIn(ctx, {
        app,
        message: body.message,
        signature: body.signature as Hex,
        issuer: ctx.publicUrl ?? `${req.protocol}://${req.host}`,
        ip,
      });
    });

    route(app, signerApi.siweSession, ({ body, app }) =>
      readSessionToken(ctx, { appId: app.id, token: body.token }),
    );

    app.get("/.well-known/jwks.json", async (_req, reply) => {
      reply.header("access-control-allow-origin", "*").header("cache-control", "public, max-age=300");
      return { keys: [await siweJwk(ctx)] };
    });
  },
});
