/**
 * `@latchkey/server`: the signer service for production. Dev mode (the dev app, the dev mailbox, the local
 * sign-in providers) is in `@latchkey/server/dev` (src/dev/index.ts), which this entry never loads.
 */
export { type App, createAppApiKey, upsertApp } from "./apps/appDirectory";
export { type AppConfig, appConfigSchema, type FileConfig, readConfigFile } from "./config";
export {
  createService,
  type Service,
  type ServiceContext,
  type ServiceOptions,
} from "./createService";
export { Keyring, loadMasterKey, parseMasterKey } from "./crypto/keyring";
export type { KeyWrapper } from "./crypto/keyWrap/keyWrapper";
export { type Db, type DbKind, migrate, openDatabase } from "./db";
export type { StoredMail } from "./mail/mailer";
