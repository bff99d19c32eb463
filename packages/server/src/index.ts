export { type AppConfig, appConfigSchema, type FileConfig, readConfigFile } from "./config";
export { Keyring, loadMasterKey, parseMasterKey } from "./crypto/keyring";
export { type Db, type DbKind, migrate, openDatabase } from "./db";
export { attachDevIdentityProvider } from "./dev/dev-stack";
export { DEV_OIDC_USERS, type DevOidcProvider, startDevOidcProvider } from "./dev/oidc-provider";
export type { StoredMail } from "./mail/mailer";
export { createService, DEV_APP_ID, type Service, type ServiceContext, type ServiceOptions } from "./service";
export { type App, createAppApiKey, upsertApp } from "./services/apps";
