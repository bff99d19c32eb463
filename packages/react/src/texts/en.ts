import type { Locale, Texts } from "./types";

/** English: the spec's texts exactly (spec §2, §8). */
export const enTexts: Texts = {
  signIn: "Sign in",
  or: "or",
  termsPrefix: "By signing in, you agree to the ",
  termsOfService: "Terms of Service",
  termsSuffix: "",
  continue: "Continue",
  emailPlaceholder: "Email",
  iHaveAPasskey: "I have a passkey",
  continueWithPasskey: "Continue with passkey",
  checkYourEmail: "Check your email",
  emailVerifyBody: "We sent a sign-in link to",
  emailVerifyHint: "Open it on this device to finish signing in.",
  enterVerificationCode: "Enter verification code",
  otpBody: "We sent a verification code to",
  verifying: "Verifying...",
  verified: "Verified!",
  resend: "Resend",
  resendDone: "Done!",
  emailNotReceived: "Email not received?",
  enterAuthenticatorCode: "Enter authenticator app code",
  totpBody: "Open your authenticator app and enter the 6-digit code.",
  completing: "Signing you in...",
  protectedBy: "Protected by",
  brand: "Latchkey",
  needHelp: "Need help?",
  contactSupport: "Contact support",
  back: "Back",
  close: "Close",
  invalidEmail: "Must provide a valid email.",
  otpInvalid: "The code you entered is incorrect",
  totpGenericError: "An error occurred while verifying the code",
  errorTitle: "Something went wrong",
  errorBody: "Please try again or use another method.",
  verificationCode: "Verification code",
  otpDigit: (i) => `Digit ${i} of 6`,
  passkeyVerifyBody: "Follow the prompt from your browser or device to continue with your passkey.",
  cancel: "Cancel",
  createPasskey: "Create a passkey",
  newHere: "New here?",
  addAPasskey: "Add a passkey",
  addPasskeyBody: "Sign in next time with your face, fingerprint or screen lock.",
  simplerLogin: "Simpler login",
  simplerLoginBody: "One touch, no codes.",
  enhancedSecurity: "Enhanced security",
  enhancedSecurityBody: "Nothing to phish or leak.",
  skip: "Skip",
  passkeyAdded: "Passkey added!",
  passkeyAddedBody: "You can use this passkey to sign in next time.",
  failedToAddPasskey: "Failed to add passkey",
  connectionFailed: "Connection failed",
  passkeyFailedBody:
    "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
  tryAgain: "Try again",
  serviceUnavailable: "Sign-in is unavailable",
  serviceUnavailableBody: "We can't reach the sign-in service right now. Please try again later.",
  useAnotherMethod: "Use another method",
  continueWith: (provider) => `Continue with ${provider}`,
  followPopup: (provider) => `Follow the steps in the pop up window to sign in with ${provider}`,
  couldNotConnect: (provider) => `Couldn't connect to ${provider}`,
  oauthFailedBody: "The connection failed or canceled",
  errors: {},
};

/**
 * English, the default.
 *
 * @example
 * <LatchkeyProvider config={config} locale={en} texts={{ signIn: "Log in" }}>…</LatchkeyProvider>
 */
export const en: Locale = { code: "en", texts: enTexts };
