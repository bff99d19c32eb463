import type { z } from "zod";

/** `true` when A and B are the same type (optional fields included, at every depth). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/**
 * A schema whose output is exactly `T`, checked at compile time: how an answer's schema (for the OpenAPI
 * document) stays the twin of the interface clients import, which carries no schema library. A field
 * added to one and not the other fails the build.
 *
 * @example
 * export const lookupResponseSchema = schemaFor<LookupResponse>()(z.object({ orgId: z.string().nullable() }));
 */
export function schemaFor<T>() {
  return <S extends z.ZodType>(schema: S & (Same<z.output<S>, T> extends true ? unknown : never)): S =>
    schema;
}
