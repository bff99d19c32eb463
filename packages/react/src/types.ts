import type { ReactNode } from "react";

// The public types of the modal's configuration. The step itself is in flow/step.ts.

/** The email method: sign in by code or magic link. */
export interface EmailSection {
  type: "email";
  /** Input placeholder (default 'Email'). */
  placeholder?: string;
  /** Submit button label (default 'Continue'). */
  buttonLabel?: string;
  /** Hide the submit button in favour of an arrow inside the input. */
  hideButton?: boolean;
}

/** The passkey method: sign in with a passkey, or create one. */
export interface PasskeySection {
  type: "passkey";
  /** Hide the 'Create a passkey' link (sign-up with a new passkey). */
  hideCreate?: boolean;
}

/** A social provider (spec §3 "OAuth config"); `displayName`, `logoUrl`, `logoUrlDark` for custom ones. */
export interface OauthConfig {
  authProviderId: "google" | "facebook" | "apple" | "twitch" | "auth0" | "github" | "discord" | (string & {});
  displayName?: string;
  auth0Connection?: string;
  logoUrl?: string;
  logoUrlDark?: string;
}

/** One social sign-in button; a section of several shows them side by side. */
export interface SocialSection extends OauthConfig {
  type: "social";
  /** Pop-up (default) or a full-page redirect. */
  mode?: "popup" | "redirect";
}

/**
 * External wallets (spec §1 "External wallet (EOA)"): a button that opens the wallet list, with every
 * wallet the page announces (EIP-6963) and WalletConnect when the provider's `externalWallets` has it.
 */
export interface ExternalWalletsSection {
  type: "external_wallets";
  /** The button's label (default 'Continue with a wallet'). */
  label?: string;
}

/** One sign-in method in a section of the modal: email, passkey, a social provider or external wallets. */
export type AuthSection = EmailSection | PasskeySection | SocialSection | ExternalWalletsSection;

/** Analytics events of the modal (spec §7). */
export type AuthEventName =
  | "eoa_connected"
  | "add_passkey_on_signup_success"
  | "add_passkey_on_signup_skip"
  /** Split custody: a recovery factor was stored (passkey or code). */
  | "wallet_protected"
  /** Split custody: the user chose to keep the wallet on this device only. */
  | "wallet_protect_skipped"
  /** Split custody: this device's part of the wallet was restored. */
  | "wallet_restored";

/** The look of the modal's illustrations. */
export type IllustrationStyle = "outline" | "linear" | "filled" | "flat";

/** The modal's colours, radius and font. */
export interface Theme {
  /** light, dark, or follow the system (default). */
  mode?: "light" | "dark" | "system";
  /** Any CSS colour; buttons, focus rings and highlights. */
  accentColor?: string;
  /** Corner radius of the dialog, e.g. "16px". */
  radius?: string;
  fontFamily?: string;
  /**
   * Blurs the page behind the dialog by this much, e.g. "3px". Off by default: where the browser draws
   * without a GPU (virtual machines, remote desktops, some Linux set-ups) a blurred backdrop is redrawn
   * on every animation frame, and on our 2-core test machine it added ~75 ms to an email sign-in
   * (bench/otp-connected.ts).
   */
  backdropBlur?: string;
  /**
   * The dialog's stacking order (CSS `z-index` of its backdrop). Default 2147483647, the largest there is:
   * above other wallet modals (RainbowKit's is 2147483646), which would otherwise cover it. Set a lower
   * one if something of yours must show above the dialog.
   */
  zIndex?: number;
}

/** What the confirmation step (`ui.confirmTransactions`) knows of the app, to warn of what it does not. */
export interface ConfirmationConfig {
  /** Native value (wei) above which a request is flagged, summed over its calls. */
  valueThreshold?: bigint | string;
  /** Spenders the app trusts (its router, its contracts): a permit to another one is flagged. */
  knownSpenders?: readonly (string | { address: string; name: string })[];
  /** EIP-7702 delegates the app allows (Simple7702Account always): a delegation to another one is flagged. */
  allowedDelegates?: readonly (string | { address: string; name: string })[];
}

/** The modal's look and behaviour (spec §3 "UI config", defaults in §2). */
export interface UiConfig {
  illustrationStyle?: IllustrationStyle;
  /** Groups of sign-in methods, separated by an 'or' divider. Default `[[{type:"email"}],[{type:"passkey"}]]`. */
  sections?: AuthSection[][];
  /** Shown as 'Need help? Contact support' on passkey and OAuth steps when set. */
  supportUrl?: string;
  /** Offer a passkey right after a new user signs up. */
  addPasskeyOnSignup?: boolean;
  /**
   * Where the flow shows what starts from outside it (spec §2 "Modal mode", the default): `"modal"` opens
   * the dialog for an account-linking prompt or the passkey offer after sign-up; `"embedded"` never opens
   * it and changes the step of the inline `<AuthCard />` instead (an app that has no dialog).
   */
  mode?: "modal" | "embedded";
  /** Link of the terms line; plain text when unset. */
  termsUrl?: string;
  /** Content of the header's middle (a logo, say). */
  header?: ReactNode;
  hideHeader?: boolean;
  hideHeading?: boolean;
  hideBack?: boolean;
  hideClose?: boolean;
  theme?: Theme;
  /**
   * Show every signature to the user before it is made: the modal's confirmation step decodes it (what it
   * sends, approves or permits), warns of what can drain the wallet (an unlimited approval, a permit to an
   * unknown spender, a delegation to a delegate not allowed, a transfer to the zero address, a value above
   * `confirmation.valueThreshold`) and shows the simulated balance changes; Confirm signs, Cancel refuses
   * (USER_REJECTED; 4001 from the EIP-1193 provider). Off by default; a call can ask for it with
   * `confirm: true`. It runs in the app's page: it protects users from an app's mistakes, not from a
   * script that already runs in the page (README "What you sign is what you see").
   */
  confirmTransactions?: boolean;
  /** What the confirmation step warns of. */
  confirmation?: ConfirmationConfig;
  /** Called when sign-in completes (the `complete` step). */
  onAuthSuccess?: () => void;
  /** Analytics: called with each event of spec §7 the modal tracks. */
  onEvent?: (event: { name: AuthEventName }) => void;
}
