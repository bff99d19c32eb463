"use client";

export {
  type AuthenticateVariables,
  authenticateMutationOptions,
  logoutMutationOptions,
  type SignMessageVariables,
  type SignTypedDataVariables,
  signMessageMutationOptions,
  signTypedDataMutationOptions,
} from "./actions";
export { AuthCard } from "./components/AuthCard";
export { AuthModal } from "./components/AuthModal";
export { DEFAULT_SECTIONS, type ResolvedUiConfig, resolveUiConfig } from "./config";
export { type LatchkeyConfig, LatchkeyProvider, type LatchkeyProviderProps } from "./context";
export { useAuthenticate, useLogout, useSignMessage, useSignTypedData } from "./hooks/mutations";
export { useAuthError } from "./hooks/useAuthError";
export { useAuthModal } from "./hooks/useAuthModal";
export { useSigner } from "./hooks/useSigner";
export { type UseSignerStatusResult, useSignerStatus } from "./hooks/useSignerStatus";
export { useUser } from "./hooks/useUser";
export { strings } from "./strings";
export type {
  AuthEventName,
  AuthSection,
  AuthStep,
  AuthStepStatus,
  AuthStepType,
  EmailSection,
  IllustrationStyle,
  OauthConfig,
  PasskeySection,
  SocialSection,
  Theme,
  UiConfig,
} from "./types";
