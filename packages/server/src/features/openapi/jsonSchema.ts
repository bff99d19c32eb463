import { z } from "zod";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as zod writes it. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/**
 * A wire schema as JSON Schema draft 2020-12. `io: "input"` describes what a request may send (before
 * transforms and defaults: an expiration as a number or a numeric string, a transport list that may be
 * left out), `"output"` what an answer holds. What JSON Schema cannot say (a transform's output, a
 * refinement's check) is left open (`{}`) rather than failing the document.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  });
  return rest;
}
