import { signerApi } from "@latchkey/protocol/schemas";
import type { FastifyReply, FastifyRequest } from "fastify";
import { assertNoNul } from "../../http/nul";
import { perIpLimit } from "../../http/perIpLimit";
import { route, stampedRoute } from "../../http/route";
import { listAuthMethods } from "../authMethods/listAuthMethods";
import { defineFeature } from "../defineFeature";
import { handleOauthCallback } from "./handleOauthCallback";
import { messagePage, popupPage } from "./pages";
import { prepareOauth } from "./prepareOauth";

/** Social sign-in: prepare, the provider's callback, and linking or unlinking a provider while signed in. */
export const oauthFeature = defineFeature({
  name: "oauth",
  register(app, ctx) {
    route(app, signerApi.prepareOauth, async ({ body, app, ip }) => {
      await perIpLimit(ctx, "oauthPrepare", ip);
      return prepareOauth(ctx, { app, nonce: body.nonce });
    });

    // A passkey may stamp it: that is a step-up proof (sessions/stepUp.ts).
    stampedRoute(
      app,
      ctx,
      signerApi.addOauthProvider,
      async ({ caller, submit }) => {
        await submit();
        return { oauthProviders: (await listAuthMethods(ctx, { user: caller.user })).oauthProviders };
      },
      { passkey: { allowRootOrg: false } },
    );

    stampedRoute(app, ctx, signerApi.removeOauthProvider, async ({ submit }) => {
      await submit();
      return {};
    });

    // The provider returns the browser here (a navigation: no API key, no CORS): by a redirect with a
    // query, or (Apple's response_mode=form_post) by a form its page POSTs. Both answers go one way.
    const callback = async (
      req: FastifyRequest,
      reply: FastifyReply,
      answer: Record<string, string | undefined>,
    ) => {
      const base = ctx.publicUrl ?? `${req.protocol}://${req.host}`;
      const result = await handleOauthCallback(ctx, {
        query: answer,
        callbackUrl: `${base}/oauth/callback`,
        ip: req.ip,
      });
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      // After a POST, 303 so the browser GETs the app's page.
      if (result.kind === "redirect")
        return reply.redirect(result.location, req.method === "POST" ? 303 : 302);
      if (result.kind === "popup") {
        const { html, scriptHash } = popupPage(result.origin, result.message);
        return reply
          .header(
            "content-security-policy",
            `default-src 'none'; script-src 'sha256-${scriptHash}'; base-uri 'none'; frame-ancestors 'none'`,
          )
          .type("text/html; charset=utf-8")
          .send(html);
      }
      return reply
        .code(result.status)
        .header("content-security-policy", "default-src 'none'; frame-ancestors 'none'")
        .type("text/html; charset=utf-8")
        .send(messagePage(result.title, result.message));
    };
    app.get("/oauth/callback", (req, reply) =>
      callback(req, reply, req.query as Record<string, string | undefined>),
    );
    // Only this route takes a form body (a child scope's parser): the APIs stay JSON-only.
    app.register(async (scope) => {
      scope.addContentTypeParser(
        "application/x-www-form-urlencoded",
        { parseAs: "string", bodyLimit: 16 * 1024 },
        (_req, body, done) => {
          const form: Record<string, string> = {};
          for (const [k, v] of new URLSearchParams(body as string)) if (!(k in form)) form[k] = v;
          try {
            assertNoNul(form);
          } catch (e) {
            return done(e as Error, undefined);
          }
          done(null, form);
        },
      );
      scope.post("/oauth/callback", (req, reply) => {
        // Only text fields count (a JSON body parses too, but carries nothing a provider sends).
        const body = req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>) : {};
        const answer: Record<string, string> = {};
        for (const [k, v] of Object.entries(body)) if (typeof v === "string") answer[k] = v;
        return callback(req, reply, answer);
      });
    });
  },
});
