import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../context";

/**
 * A server feature: a folder under `features/` with its logic beside it, whose `routes.ts` exports one
 * of these, registered from the list in `features/index.ts`. Features import the context, `http/`
 * helpers, shared domain modules, `@latchkey/protocol` and another feature's logic (sign-in asks
 * `features/mfa` for the second factor), never the composition root or another feature's routes.
 */
export interface Feature {
  name: string;
  register(app: FastifyInstance, ctx: ServiceContext): void;
}

export function defineFeature(feature: Feature): Feature {
  return feature;
}
