/**
 * `@latchkey/backend`: an app's backend acting for its users within the permissions they granted it
 * (Latchkey's permission grants): sign messages, typed data and transactions, send user operations, list
 * grants — authenticated by the app's server key, never by a user's session.
 */
export type { Grant, GrantPermissions, GrantStatus } from "@latchkey/protocol";
export {
  type BackendCall,
  type BackendClient,
  type BackendClientOptions,
  createBackendClient,
  type GrantSignature,
  type SentUserOperation,
  type UnderGrant,
} from "./client";
export { BackendApiError } from "./errors";
