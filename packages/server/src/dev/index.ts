/**
 * `@latchkey/server/dev`: everything the production entry leaves out. Dev mode's `createService` (the dev
 * app, the dev mailbox at /dev/mailbox), the local OpenID Connect provider and the social provider
 * stand-ins. `latchkey serve --dev`, `npm start` and the tests load it; a production service never does.
 * The OpenID Connect provider needs `oidc-provider` (an optional peer dependency: `npm i -D oidc-provider`).
 */
import { composeService, type DevMode, type Service, type ServiceOptions } from "../createService";
import { ensureDevApp } from "./devApp";
import { devMailboxFeature } from "./mailbox/routes";

export * from "../index";
export { DEV_APP_ID, DEV_SOLANA_POLICY_ID, devPolicyId, ensureDevApp } from "./devApp";
export { DEV_BLOCKED_ADDRESS, DEV_POLICY_RULE_ID, DEV_SIGNING_POLICY } from "./devSigningPolicy";
export { attachDevIdentityProvider } from "./devStack";
export {
  checkDevDependencies,
  DEV_OIDC_USERS,
  type DevOidcProvider,
  type DevOidcUser,
  startDevOidcProvider,
} from "./oidcProvider";
export { type StandIns, startStandIns } from "./standIns";

const devMode: DevMode = { features: [devMailboxFeature], ensureDevApp };

/**
 * The service, as `@latchkey/server`'s `createService` makes it, and with `dev: true` in dev mode: the
 * dev app (its API key in `service.devApp`) and the dev mailbox (/dev/mailbox, /dev/mailbox.json).
 *
 * @example
 * const service = await createService({ db: ".latchkey/latchkey.db", dev: true });
 * console.log(await service.listen({ port: 8787 }), service.devApp?.apiKey);
 */
export function createService(opts: ServiceOptions): Promise<Service> {
  return composeService(opts, devMode);
}
