import serverPackage from "../../../package.json" with { type: "json" };
import { defineFeature } from "../defineFeature";
import { buildOpenApi } from "./buildOpenApi";

let document: string | undefined;

/** The document as JSON text: built on the first request, then served as is (it depends on no request). */
function openApiJson(): string {
  document ??= JSON.stringify(buildOpenApi({ version: serverPackage.version }));
  return document;
}

/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of the signer and key-management APIs, generated from
 * the protocol's schemas. Public and readable from any origin, like `/healthz`: it holds nothing that is
 * not in the protocol package.
 */
export const openApiFeature = defineFeature({
  name: "openapi",
  register(app) {
    app.get("/openapi.json", async (_req, reply) => {
      reply.header("access-control-allow-origin", "*");
      return reply.type("application/json; charset=utf-8").send(openApiJson());
    });
  },
});
