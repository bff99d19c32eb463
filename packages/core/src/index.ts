export {
  type SignRawMessageParameters,
  type SignRawMessageReturnType,
  signRawMessage,
} from "./actions/signRawMessage";
export {
  type KitTransactionLike,
  type ReadonlyBytes,
  type SolanaSigner,
  type SolanaTransactionLike,
  toSolanaSigner,
  type Web3LegacyTransactionLike,
  type Web3VersionedTransactionLike,
} from "./actions/toSolanaSigner";
export { toViemAccount } from "./actions/toViemAccount";
export { SignerClient, type SignerClientOptions } from "./client/signerClient";
export type * from "./client/types";
export {
  ActivityError,
  isPasskeyCancelled,
  LatchkeyError,
  MfaRequiredError,
  type MultiFactor,
  PasskeyCancelledError,
  PasskeyError,
  type PasskeyErrorCode,
  PasskeyErrorMessages,
  SignerApiError,
  SignerError,
  type SignerErrorCode,
  SignerErrorMessages,
} from "./errors";
export { createIframeKeyHolder, DEFAULT_IFRAME_ID, type IframeKeyHolderOptions } from "./keyHolders/iframe";
export { createMemoryKeyHolder } from "./keyHolders/memory";
export type { KeyHolder } from "./keyHolders/types";
export { createWebCryptoKeyHolder, type WebCryptoKeyHolderOptions } from "./keyHolders/webCrypto";
export {
  isOauthCancelled,
  OauthCancelledError,
  OauthError,
  type OauthErrorCode,
  OauthErrorMessages,
  type OauthMode,
  type OauthParams,
} from "./oauth/oauth";
export { type Clock, systemClock } from "./session/clock";
export {
  DEFAULT_SESSION_KEY,
  type SessionChange,
  type SessionEventTarget,
  SessionManager,
  type SessionManagerOptions,
} from "./session/sessionManager";
export { createMemoryStorage, type SessionStorageLike } from "./session/storage";
export type { Session, SessionType, TemporarySession, User } from "./session/types";
export type { SignerEventName, SignerEvents, SignerStateError } from "./signer/events";
export {
  type AddOauthProviderParams,
  type AuthenticateParams,
  type AuthenticateResult,
  type CompleteAuthWithBundleParams,
  createSigner,
  type OauthAuthenticateParams,
  Signer,
  type SignerOptions,
  type SignerState,
} from "./signer/signer";
export { SignerStatus } from "./signer/status";
export { AUTH_URL_PARAMS, type AuthUrlParams, readAuthUrlParams, type UrlWindow } from "./signer/urlParams";
export { SDK_VERSION } from "./version";
