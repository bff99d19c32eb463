import type { StampedBinding } from "@latchkey/protocol";
import type { JsonSchema } from "./jsonSchema";

/**
 * The parts of an OpenAPI 3.1 document that `buildOpenApi` writes: only what the service describes, so
 * the document is typed without an OpenAPI library.
 */

/** `{$ref: "#/components/…"}`. */
export interface Ref {
  $ref: string;
}

/** A JSON body: its schema, by reference to `components.schemas`. */
export interface JsonContent {
  "application/json": { schema: Ref };
}

export interface ResponseObject {
  description: string;
  content: JsonContent;
}

/** One `POST` of the service. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Each entry is one way to authenticate (any one suffices). */
  security: Record<string, string[]>[];
  requestBody: { required: true; content: JsonContent };
  responses: Record<string, ResponseObject | Ref>;
  /** A signer-API route that carries a stamped request: how that request is bound (DESIGN §3.2). */
  "x-latchkey-stamped"?: StampedBinding;
}

/** One `GET` of the service: no body; public ones have no security. */
export type GetOperation = Omit<Operation, "requestBody" | "x-latchkey-stamped">;

export type SecurityScheme =
  | { type: "http"; scheme: "bearer"; bearerFormat: string; description: string }
  | { type: "apiKey"; in: "header"; name: string; description: string };

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, { post: Operation } | { get: GetOperation }>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}
