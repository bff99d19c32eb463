import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../context";

/**
 * A server feature: a folder under `features/` whose `routes.ts` exports one of these, registered from
 * the list in `features/index.ts`. Features import the context, `http/` helpers, shared domain modules
 * and `@latchkey/protocol`, never the composition root or another feature.
 */
export interface Feature {
  name: string;
  register(app: FastifyInstance, ctx: ServiceContext): void;
}

export function defineFeature(feature: Feature): Feature {
  return feature;
}
