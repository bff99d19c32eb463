"use client";

export { AuthCard } from "./components/AuthCard";
export { AuthModal } from "./components/AuthModal";
export { ExportAccount } from "./components/ExportAccount";
export { ImportWallet } from "./components/ImportWallet";
export { DEFAULT_SECTIONS, type ResolvedUiConfig, resolveUiConfig } from "./config";
export { type LatchkeyConfig, LatchkeyProvider, type LatchkeyProviderProps } from "./context";
export type { AuthStep, AuthStepStatus, AuthStepType } from "./flow/step";
export { GrantDeclinedError } from "./flow/transitions/grant";
export { useAddOauthProvider } from "./hooks/useAddOauthProvider";
export { useAddPasskey } from "./hooks/useAddPasskey";
export { type UseAuditEventsResult, useAuditEvents } from "./hooks/useAuditEvents";
export { useAuthError } from "./hooks/useAuthError";
export { useAuthenticate } from "./hooks/useAuthenticate";
export { type UseAuthMethodsResult, useAuthMethods } from "./hooks/useAuthMethods";
export { useAuthModal } from "./hooks/useAuthModal";
export { useExportAccount } from "./hooks/useExportAccount";
export { useExternalWallet } from "./hooks/useExternalWallet";
export { useGrantConsent } from "./hooks/useGrantConsent";
export { type UseGrantsResult, useGrants } from "./hooks/useGrants";
export { useImportWallet } from "./hooks/useImportWallet";
export { useLogout } from "./hooks/useLogout";
export { useMfa } from "./hooks/useMfa";
export { useRemoveEmail } from "./hooks/useRemoveEmail";
export { useRemoveOauthProvider } from "./hooks/useRemoveOauthProvider";
export { useRemovePasskey } from "./hooks/useRemovePasskey";
export { useRevokeGrant } from "./hooks/useRevokeGrant";
export { type UseSendUserOperationOptions, useSendUserOperation } from "./hooks/useSendUserOperation";
export { useSetEmail } from "./hooks/useSetEmail";
export { useSigner } from "./hooks/useSigner";
export { type UseSignerStatusResult, useSignerStatus } from "./hooks/useSignerStatus";
export { useSignMessage } from "./hooks/useSignMessage";
export { type UseSignTypedDataReturnType, useSignTypedData } from "./hooks/useSignTypedData";
export { type UseSmartAccountClientResult, useSmartAccountClient } from "./hooks/useSmartAccountClient";
export { type UseSolanaTransactionOptions, useSolanaTransaction } from "./hooks/useSolanaTransaction";
export { useSwitchExternalWalletChain } from "./hooks/useSwitchExternalWalletChain";
export { useUser } from "./hooks/useUser";
export { useWaitForUserOperationTransaction } from "./hooks/useWaitForUserOperationTransaction";
export { type AuthenticateVariables, authenticateMutationOptions } from "./query/authenticate";
export { exportWalletMutationOptions } from "./query/exportWallet";
export { switchExternalWalletChainMutationOptions } from "./query/externalWallet";
export {
  importWalletMutationOptions,
  type SubmitImportVariables,
  submitImportMutationOptions,
} from "./query/importWallet";
export { logoutMutationOptions } from "./query/logout";
export { type SignMessageVariables, signMessageMutationOptions } from "./query/signMessage";
export { type SignTypedDataVariables, signTypedDataMutationOptions } from "./query/signTypedData";
export type { SolanaTransactionVariables } from "./query/solana";
export { en } from "./texts/en";
export type { Locale, LocaleCode, TextOverrides, Texts } from "./texts/types";
export type {
  AuthEventName,
  AuthSection,
  ConfirmationConfig,
  EmailSection,
  ExternalWalletsSection,
  IllustrationStyle,
  OauthConfig,
  PasskeySection,
  SocialSection,
  Theme,
  UiConfig,
} from "./types";
