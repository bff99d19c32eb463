import { seedBackendLabel } from "../../crypto/pbkdf2";
import { secp256k1Impl } from "../../crypto/secp256k1";
import { defineFeature } from "../defineFeature";

/**
 * `/healthz` for probes: answers once the database does. Readable from any origin (it says only that a
 * Latchkey service is up), so a client on a page no app allows can tell "not allowed" from "not there".
 */
export const healthFeature = defineFeature({
  name: "health",
  register(app, ctx) {
    app.get("/healthz", async (_req, reply) => {
      await ctx.db.selectFrom("apps").select("id").limit(1).execute();
      reply.header("access-control-allow-origin", "*");
      // Which secp256k1 implementation signs: "libsecp256k1" (native) or "noble" (the fallback); and what
      // computes new wallets' seeds: "native" (the PBKDF2 addon) or "node:crypto" (the fallback), with why
      // where the addon loaded but failed its self-test ("node:crypto (addon failed its self-test: …)").
      return {
        status: "ok",
        service: "latchkey",
        database: ctx.dbKind,
        secp256k1: secp256k1Impl().backend,
        pbkdf2: seedBackendLabel(),
      };
    });
  },
});
