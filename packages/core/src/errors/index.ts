export { ActivityError, type MultiFactor, SignerApiError } from "./api";
export { LatchkeyError } from "./base";
export {
  type ApiErrorCode,
  type ConnectionErrorCode,
  type CoreErrorCode,
  type ExternalWalletErrorCode,
  ExternalWalletErrorMessages,
  type FrameErrorCode,
  type OauthErrorCode,
  OauthErrorMessages,
  type PasskeyErrorCode,
  PasskeyErrorMessages,
  type SignerErrorCode,
  SignerErrorMessages,
  type SmartAccountErrorCode,
  SmartAccountErrorMessages,
  type SolanaErrorCode,
  SolanaErrorMessages,
} from "./codes";
export { ExternalWalletError, isUserRejected } from "./externalWallet";
export { isOauthCancelled, OauthCancelledError, OauthError } from "./oauth";
export { isPasskeyCancelled, PasskeyCancelledError, PasskeyError } from "./passkey";
export { MfaRequiredError, SignerError } from "./signer";
export { SmartAccountError } from "./smartAccount";
export { SolanaError } from "./solana";
