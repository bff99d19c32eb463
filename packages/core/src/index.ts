export { toSolanaSigner } from "./accounts/toSolanaSigner";
export { type ToViemAccountOptions, toViemAccount } from "./accounts/toViemAccount";
export {
  type AddMfaErrorType,
  type AddMfaParameters,
  type AddMfaReturnType,
  addMfa,
} from "./actions/addMfa";
export {
  type AddOauthProviderErrorType,
  type AddOauthProviderParameters,
  type AddOauthProviderParams,
  type AddOauthProviderReturnType,
  addOauthProvider,
} from "./actions/addOauthProvider";
export {
  type AddPasskeyErrorType,
  type AddPasskeyParameters,
  type AddPasskeyReturnType,
  addPasskey,
} from "./actions/addPasskey";
export {
  type AuthenticateErrorType,
  type AuthenticateParameters,
  type AuthenticateReturnType,
  authenticate,
} from "./actions/authenticate";
export {
  type CheckConnectionErrorType,
  type CheckConnectionReturnType,
  checkConnection,
} from "./actions/checkConnection";
export {
  type CompleteApprovedActivitiesErrorType,
  type CompleteApprovedActivitiesReturnType,
  completeApprovedActivities,
} from "./actions/completeApprovedActivities";
export {
  type CompleteAuthWithBundleErrorType,
  type CompleteAuthWithBundleParameters,
  type CompleteAuthWithBundleReturnType,
  completeAuthWithBundle,
} from "./actions/completeAuthWithBundle";
export {
  type ConnectExternalWalletErrorType,
  type ConnectExternalWalletParameters,
  type ConnectExternalWalletReturnType,
  connectExternalWallet,
} from "./actions/connectExternalWallet";
export {
  type CreateGrantErrorType,
  type CreateGrantOptions,
  type CreateGrantParameters,
  type CreateGrantReturnType,
  createGrant,
  type Grant,
  type GrantPermissions,
  type GrantPermissionsInput,
  type GrantStatus,
} from "./actions/createGrant";
export {
  type DisconnectReturnType,
  disconnect,
} from "./actions/disconnect";
export { disconnectExternalWallet } from "./actions/disconnectExternalWallet";
export {
  DEFAULT_EXPORT_IFRAME_ID,
  type ExportStepUp,
  type ExportWalletErrorType,
  type ExportWalletParameters,
  type ExportWalletReturnType,
  exportWallet,
  type StepUpMethod,
  stepUpMethodsOf,
} from "./actions/exportWallet";
export {
  type GetMfaFactorsErrorType,
  type GetMfaFactorsReturnType,
  getMfaFactors,
} from "./actions/getMfaFactors";
export { type GetPasskeyPrfSupportReturnType, getPasskeyPrfSupport } from "./actions/getPasskeyPrfSupport";
export {
  type GetPasskeyStatusErrorType,
  type GetPasskeyStatusReturnType,
  getPasskeyStatus,
} from "./actions/getPasskeyStatus";
export {
  type GetSmartAccountClientErrorType,
  type GetSmartAccountClientParameters,
  type GetSmartAccountClientReturnType,
  getSmartAccountClient,
} from "./actions/getSmartAccountClient";
export { type GetWalletConnectorsReturnType, getWalletConnectors } from "./actions/getWalletConnectors";
export {
  DEFAULT_IMPORT_IFRAME_ID,
  type ImportedWallet,
  type ImportWalletErrorType,
  type ImportWalletKind,
  type ImportWalletParameters,
  type ImportWalletReturnType,
  importWallet,
} from "./actions/importWallet";
export {
  type AuditEvent,
  type ListAuditEventsErrorType,
  type ListAuditEventsParameters,
  type ListAuditEventsReturnType,
  listAuditEvents,
} from "./actions/listAuditEvents";
export {
  type ListAuthMethodsErrorType,
  type ListAuthMethodsReturnType,
  listAuthMethods,
} from "./actions/listAuthMethods";
export { type ListGrantsErrorType, type ListGrantsReturnType, listGrants } from "./actions/listGrants";
export {
  type PreparePopupOauthErrorType,
  type PreparePopupOauthReturnType,
  preparePopupOauth,
} from "./actions/preparePopupOauth";
export {
  type PreviewSigningErrorType,
  type PreviewSigningParameters,
  previewSigning,
} from "./actions/previewSigning";
export {
  type ProtectWalletErrorType,
  type ProtectWalletParameters,
  type ProtectWalletReturnType,
  protectWallet,
} from "./actions/protectWallet";
export {
  type RemoveEmailErrorType,
  type RemoveEmailParameters,
  type RemoveEmailReturnType,
  removeEmail,
} from "./actions/removeEmail";
export {
  type RemoveMfaErrorType,
  type RemoveMfaParameters,
  type RemoveMfaReturnType,
  removeMfa,
} from "./actions/removeMfa";
export {
  type RemoveOauthProviderErrorType,
  type RemoveOauthProviderParameters,
  type RemoveOauthProviderReturnType,
  removeOauthProvider,
} from "./actions/removeOauthProvider";
export {
  type RemovePasskeyErrorType,
  type RemovePasskeyParameters,
  type RemovePasskeyReturnType,
  removePasskey,
} from "./actions/removePasskey";
export {
  type RequireUserErrorType,
  type RequireUserReturnType,
  requireUser,
} from "./actions/requireUser";
export {
  type RestoreWalletErrorType,
  type RestoreWalletParameters,
  type RestoreWalletReturnType,
  restoreWallet,
} from "./actions/restoreWallet";
export {
  type RevokeGrantErrorType,
  type RevokeGrantParameters,
  type RevokeGrantReturnType,
  revokeGrant,
} from "./actions/revokeGrant";
export {
  type SendSolanaTransactionErrorType,
  type SendSolanaTransactionParameters,
  type SendSolanaTransactionReturnType,
  sendSolanaTransaction,
} from "./actions/sendSolanaTransaction";
export {
  type SendUserOperationErrorType,
  type SendUserOperationParameters,
  type SendUserOperationReturnType,
  sendUserOperation,
} from "./actions/sendUserOperation";
export {
  type SendVerificationCodeErrorType,
  type SendVerificationCodeParameters,
  type SendVerificationCodeReturnType,
  sendVerificationCode,
} from "./actions/sendVerificationCode";
export {
  type SetEmailErrorType,
  type SetEmailParameters,
  type SetEmailReturnType,
  setEmail,
} from "./actions/setEmail";
export { signInWithEthereum } from "./actions/signInWithEthereum";
export {
  type SignRawMessageErrorType,
  type SignRawMessageParameters,
  type SignRawMessageReturnType,
  signRawMessage,
} from "./actions/signRawMessage";
export {
  type SwitchExternalWalletChainErrorType,
  type SwitchExternalWalletChainParameters,
  switchExternalWalletChain,
} from "./actions/switchExternalWalletChain";
export {
  type ValidateMultiFactorsErrorType,
  type ValidateMultiFactorsParameters,
  type ValidateMultiFactorsReturnType,
  validateMultiFactors,
} from "./actions/validateMultiFactors";
export {
  type VerifyMfaErrorType,
  type VerifyMfaParameters,
  type VerifyMfaReturnType,
  verifyMfa,
} from "./actions/verifyMfa";
export {
  type WaitForActivityErrorType,
  type WaitForActivityParameters,
  type WaitForActivityReturnType,
  waitForActivity,
} from "./actions/waitForActivity";
export {
  type WaitForUserOperationTransactionErrorType,
  type WaitForUserOperationTransactionParameters,
  type WaitForUserOperationTransactionReturnType,
  waitForUserOperationTransaction,
} from "./actions/waitForUserOperationTransaction";
export { type WatchWalletConnectorsParameters, watchWalletConnectors } from "./actions/watchWalletConnectors";
export { type JsonRpcAnswer, SignerClient, type SignerClientOptions } from "./client/signerClient";
export type * from "./client/types";
export { createSigner } from "./createSigner";
export {
  ActivityError,
  type ApiErrorCode,
  type ConnectionErrorCode,
  type CoreErrorCode,
  ExternalWalletError,
  type ExternalWalletErrorCode,
  ExternalWalletErrorMessages,
  isOauthCancelled,
  isPasskeyCancelled,
  isUserRejected,
  LatchkeyError,
  MfaRequiredError,
  type MultiFactor,
  OauthCancelledError,
  OauthError,
  type OauthErrorCode,
  OauthErrorMessages,
  PasskeyCancelledError,
  PasskeyError,
  type PasskeyErrorCode,
  PasskeyErrorMessages,
  SignerApiError,
  SignerError,
  type SignerErrorCode,
  SignerErrorMessages,
  SmartAccountError,
  type SmartAccountErrorCode,
  SmartAccountErrorMessages,
  SolanaError,
  type SolanaErrorCode,
  SolanaErrorMessages,
} from "./errors";
export { createIframeKeyHolder, DEFAULT_IFRAME_ID, type IframeKeyHolderOptions } from "./keyHolders/iframe";
export { createMemoryKeyHolder, type MemoryKeyHolderOptions } from "./keyHolders/memory";
export type {
  CreatedSplitWallet,
  KeyHolder,
  KeyHolderStamp,
  KeyHolderStorage,
  ProtectedShare,
  RecoveryInput,
  SignInWallet,
  SplitCustodyKeyHolder,
} from "./keyHolders/types";
export { createWebCryptoKeyHolder, type WebCryptoKeyHolderOptions } from "./keyHolders/webCrypto";
export {
  type AnnounceEip1193ProviderOptions,
  announceEip1193Provider,
  type Eip6963ProviderInfo,
  type Eip6963Window,
} from "./provider/announce";
export { createEip1193Provider } from "./provider/createEip1193Provider";
export { ProviderRpcError, ProviderRpcErrorCode, type ProviderRpcErrorCodeValue } from "./provider/errors";
export type {
  CreateEip1193ProviderOptions,
  LatchkeyEip1193Provider,
  PlainChainConfig,
} from "./provider/types";
export { Signer } from "./Signer";
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
export {
  type SigningConfirmation,
  type SigningConfirmationHandler,
  type SigningRequest,
  setSigningConfirmation,
  withSigningConfirmation,
} from "./signer/confirmation";
export type { SignerEventName, SignerEvents, SignerStateError } from "./signer/events";
export { setSignInPrompt } from "./signer/signInPrompt";
export { SignerStatus } from "./signer/status";
export type { StepUp } from "./signer/stepUp";
export type { Store, StoreListener } from "./signer/store";
export type {
  AuthenticateParams,
  AuthenticateResult,
  AuthMethod,
  CompleteAuthWithBundleParams,
  EmailAuthenticateParams,
  ExternalWalletsConfig,
  OauthAuthenticateParams,
  OtpAuthenticateParams,
  PasskeyAuthenticateParams,
  RecoveryFactor,
  SignerBase,
  SignerOptions,
  SignerState,
  WalletAccess,
} from "./signer/types";
export {
  AUTH_URL_PARAMS,
  type AuthUrlParams,
  readAuthUrlParams,
  SIGNUP_URL_PARAM,
  type UrlWindow,
} from "./signer/urlParams";
export type {
  EoaTransactionRequest,
  ExternalWalletChain,
  ExternalWalletState,
  ExternalWalletsOptions,
  SiweOptions,
  SiweSession,
  WalletConnectOptions,
  WalletConnectorInfo,
} from "./types/externalWallets";
export type { OauthMode, OauthParams } from "./types/oauth";
export type {
  LatchkeySmartAccountClient,
  PaymasterServiceInput,
  SentUserOperation,
  SmartAccountChainConfig,
  SmartAccountContract,
  SmartAccountKind,
  SmartAccountOptions,
  UserOperationCallInput,
  UserOperationInput,
} from "./types/smartAccounts";
export type {
  KitInstructionInput,
  KitTransactionLike,
  ReadonlyBytes,
  SolanaChain,
  SolanaCommitment,
  SolanaConfig,
  SolanaInstructionInput,
  SolanaOptions,
  SolanaRpcLike,
  SolanaSigner,
  SolanaTransactionLike,
  Web3LegacyTransactionLike,
  Web3PublicKeyInput,
  Web3TransactionInstructionInput,
  Web3VersionedTransactionLike,
} from "./types/solana";
export { SDK_VERSION } from "./version";
