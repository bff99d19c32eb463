/**
 * Every user-visible text of the modal (spec §2, §8). English is `en`; a locale is a complete `Texts`;
 * an app overrides any part with `TextOverrides`. Texts with a value in them are functions.
 */
export interface Texts {
  signIn: string;
  or: string;
  termsPrefix: string;
  termsOfService: string;
  /** After the terms link ('' in English; German puts its verb there). */
  termsSuffix: string;
  continue: string;
  emailPlaceholder: string;
  iHaveAPasskey: string;
  continueWithPasskey: string;
  checkYourEmail: string;
  emailVerifyBody: string;
  emailVerifyHint: string;
  enterVerificationCode: string;
  otpBody: string;
  verifying: string;
  verified: string;
  resend: string;
  resendDone: string;
  emailNotReceived: string;
  enterAuthenticatorCode: string;
  totpBody: string;
  completing: string;
  protectedBy: string;
  brand: string;
  needHelp: string;
  contactSupport: string;
  back: string;
  close: string;
  invalidEmail: string;
  otpInvalid: string;
  totpGenericError: string;
  errorTitle: string;
  errorBody: string;
  verificationCode: string;
  /** The label of one box of the code, e.g. 'Digit 2 of 6'. */
  otpDigit: (index: number) => string;
  passkeyVerifyBody: string;
  cancel: string;
  createPasskey: string;
  newHere: string;
  addAPasskey: string;
  addPasskeyBody: string;
  simplerLogin: string;
  simplerLoginBody: string;
  enhancedSecurity: string;
  enhancedSecurityBody: string;
  skip: string;
  passkeyAdded: string;
  passkeyAddedBody: string;
  failedToAddPasskey: string;
  connectionFailed: string;
  passkeyFailedBody: string;
  tryAgain: string;
  /** The provider's connection check failed (the cause goes to the console). */
  serviceUnavailable: string;
  serviceUnavailableBody: string;
  useAnotherMethod: string;
  continueWith: (provider: string) => string;
  followPopup: (provider: string) => string;
  couldNotConnect: (provider: string) => string;
  oauthFailedBody: string;
  /** 'Continue with a wallet': the external wallets button. */
  continueWithWallet: string;
  selectYourWallet: string;
  noWalletsAvailable: string;
  /** 'Connecting to {wallet}' (eoa_connect, wallet_connect). */
  connectingTo: (wallet: string) => string;
  eoaConnectBody: string;
  walletConnectBody: string;
  /** Under the WalletConnect QR code. */
  scanWithWallet: string;
  copyLink: string;
  linkCopied: string;
  walletFailedBody: string;
  walletWrongNetwork: string;
  tryDifferentWallet: string;
  walletConnectConfigBody: string;
  connectionTimedOut: string;
  needMoreTime: string;
  /** 'The code could not be verified': the OTP step could not reach the service (spec §8). */
  otpFailedBody: string;
  permissionDenied: string;
  permissionDeniedBody: string;
  /** `<ExportAccount />`: its heading, warning and buttons. */
  exportTitle: string;
  exportBody: string;
  exportReveal: string;
  exportHide: string;
  /** Shown in the export frame, above the numbered words and on its buttons. */
  exportPhraseTitle: string;
  exportShowEvmKey: string;
  exportShowSolanaKey: string;
  exportEvmKeyTitle: string;
  exportSolanaKeyTitle: string;
  /** The export frame refused the bundle (a signature or organisation that does not match). */
  exportInvalid: string;
  /** `<ImportWallet />`: its heading, what can be imported, the warning and its buttons. */
  importTitle: string;
  importBody: string;
  importKindLabel: string;
  importKindPhrase: string;
  importKindEvmKey: string;
  importKindSolanaKey: string;
  importContinue: string;
  /** What a phrase import replaces: '… instead of your current one ({addresses}) …'. */
  importWarnPhrase: (addresses: string) => string;
  importWarnEvmKey: (address: string) => string;
  importWarnSolanaKey: (address: string) => string;
  importConfirm: string;
  /** Shown in the import frame: the field's label and placeholder, by kind. */
  importFieldPhrase: string;
  importPlaceholderPhrase: string;
  importFieldEvmKey: string;
  importPlaceholderEvmKey: string;
  importFieldSolanaKey: string;
  importPlaceholderSolanaKey: string;
  /** Shown in the import frame when what was typed is not of its kind. */
  importInvalidPhrase: string;
  importInvalidEvmKey: string;
  importInvalidSolanaKey: string;
  /** The import could not go on (the frame refused the service's key, or it expired): start again. */
  importInvalidBundle: string;
  importSubmit: string;
  importing: string;
  importStepUpBody: string;
  importDone: string;
  /** 'The app now uses {addresses}.' */
  importDoneBody: (addresses: string) => string;
  importFinish: string;
  /** The re-authentication prompt an export asks for when the sign-in is older than five minutes. */
  stepUpTitle: string;
  stepUpBody: string;
  stepUpSendCode: string;
  /** 'Code sent to {email}' */
  stepUpCodeSent: (email: string) => string;
  stepUpUsePasskey: string;
  stepUpUseTotp: string;
  /**
   * Texts for the service's errors, by their stable code (`ErrorCode`). A code without a text shows the
   * service's own (English) message, as English does for every code.
   */
  /** The consent step (grant_consent): what the app's backend may sign for the user. */
  grantTitle: string;
  grantIntro: string;
  grantNetworks: string;
  grantNetwork: (chainId: string) => string;
  grantContracts: string;
  grantAnyContract: string;
  grantFunctions: string;
  grantAnyFunction: string;
  grantValuePerTransaction: string;
  grantValuePerDay: string;
  grantNoValue: string;
  grantValue: (amount: string) => string;
  /** A token limit's label: the token (shortened address, or the native coin's "ETH"). */
  grantTokenLimit: (token: string) => string;
  /** An amount of a token in its smallest unit (the modal does not know its decimals). */
  grantTokenUnits: (amount: string) => string;
  /** How a token limit counts: per transaction, per rolling 24 h / 7 d / 30 d, per UTC day, in all. */
  grantTokenPerTransaction: string;
  grantTokenPer24h: string;
  grantTokenPer7d: string;
  grantTokenPer30d: string;
  grantTokenPerDay: string;
  grantTokenInAll: string;
  grantOperations: string;
  grantOperationsAtMost: (count: string) => string;
  grantNoOperationLimit: string;
  grantAlso: string;
  grantMessages: string;
  grantTypedData: string;
  grantUntil: string;
  grantRevokeHint: string;
  /**
   * Under the limits, for a split-custody user (docs/split-custody.md §5.1): the grant keeps a copy of
   * their part of the wallet until it ends or is revoked.
   */
  grantSplitCustody: string;
  grantAllow: string;
  grantDecline: string;
  grantFailed: string;
  /** Above the step-up prompt when making a grant needs a recent sign-in. */
  grantStepUpBody: string;
  errors: Partial<Record<string, string>>;
}

/** A language of the modal: its BCP 47 code (the dialog's `lang`) and its texts. */
export interface Locale {
  code: string;
  texts: Texts;
}

/** The locales that ship with the package; any other is a `Locale` object of your own. */
export type LocaleCode = "en" | "de" | "fr" | "es";

/** Any part of the texts, replacing the locale's; `errors` merge code by code. */
export type TextOverrides = Partial<Omit<Texts, "errors">> & { errors?: Partial<Record<string, string>> };
