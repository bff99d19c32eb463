export { type App, createAppApiKey, upsertApp } from "./apps/appDirectory";
export { type AppConfig, appConfigSchema, type FileConfig, readConfigFile } from "./config";
export {
  createService,
  DEV_APP_ID,
  type Service,
  type ServiceContext,
  type ServiceOptions,
} from "./createService";
export { Keyring, loadMasterKey, parseMasterKey } from "./crypto/keyring";
export { type Db, type DbKind, migrate, openDatabase } from "./db";
export { attachDevIdentityProvider } from "./dev/devStack";
export { DEV_OIDC_USERS, type DevOidcProvider, startDevOidcProvider } from "./dev/oidcProvider";
export type { StoredMail } from "./mail/mailer";
