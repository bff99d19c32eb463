import type { EmailMode } from "@latchkey/protocol";
import type { SignerClient } from "../client/signerClient";
import type { MultiFactorCode, PasskeyCredentials } from "../client/types";
import type { KeyHolder } from "../keyHolders/types";
import type { Clock } from "../session/clock";
import type { SessionEventTarget, SessionManager } from "../session/sessionManager";
import type { SessionStorageLike } from "../session/storage";
import type { SessionType, User } from "../session/types";
import type {
  ExternalWalletState,
  ExternalWalletsEngine,
  ExternalWalletsOptions,
} from "../types/externalWallets";
import type { OauthParams } from "../types/oauth";
import type {
  LatchkeySmartAccountClient,
  SmartAccountChainConfig,
  SmartAccountOptions,
} from "../types/smartAccounts";
import type { SolanaConfig } from "../types/solana";
import type { Emitter, SignerEvents, SignerStateError } from "./events";
import type { SignerStatus } from "./status";
import type { Store } from "./store";
import type { AuthUrlParams, UrlWindow } from "./urlParams";

/** How a signer reaches the service (URL, API key or JWT) and where it keeps keys and sessions. */
export interface SignerOptions {
  /** The signer service, e.g. `https://auth.example.com`. */
  baseUrl: string;
  apiKey?: string;
  jwt?: string;
  /** Defaults to the auth iframe in a browser and to memory elsewhere. */
  keyHolder?: KeyHolder;
  /** The app's id: narrows the auth frame's `frame-ancestors` to this app's origins. */
  appId?: string;
  /** Where the default auth iframe goes (`document.body` by default). */
  iframeContainer?: HTMLElement;
  /**
   * The element id of the default auth iframe (`DEFAULT_IFRAME_ID` by default): two signers on one page
   * need two ids (spec §3 "Session settings").
   */
  iframeId?: string;
  /**
   * The app's root organisation id, which a passkey sign-in addresses (spec §3 "Session settings"). By
   * default it is read from the service's signer config on the first passkey sign-in; giving it saves
   * that request. It must be the app's own (the service refuses another).
   */
  rootOrgId?: string;
  storage?: SessionStorageLike;
  sessionKey?: string;
  clock?: Clock;
  fetch?: typeof fetch;
  /** Session lifetime asked of the service (default 900 s). */
  expirationSeconds?: number;
  /** Where focus/storage events and URL parameters come from: `window` by default, `null` for none. */
  window?: (UrlWindow & SessionEventTarget) | null;
  /** Magic-link target; must be on the app's allow-list. */
  redirectUrl?: string;
  /** WebAuthn relying-party id for passkeys; `location.hostname` by default. Must match the app's config. */
  rpId?: string;
  /** Relying-party name the passkey prompt shows; the rpId by default. */
  rpName?: string;
  /** Where passkeys come from: `navigator.credentials` by default (tests may pass a software one). */
  credentials?: PasskeyCredentials;
  /**
   * Pop-up social sign-in opens its window inside `authenticate()` itself (call it in the click
   * handler). Off by default (spec §9): then call `preparePopupOauth()` in the click handler first.
   */
  enablePopupOauth?: boolean;
  /** The service's OAuth callback; `<baseUrl>/oauth/callback` by default. */
  oauthCallbackUrl?: string;
  /**
   * Chains for the user's smart account (ERC-4337 v0.8): chain, RPC, bundler and optional sponsorship
   * policy. The first is the default for `sendUserOperation`.
   */
  chains?: readonly SmartAccountChainConfig[];
  /**
   * The smart account new users get: `{ kind: "7702" }` (default: the user's EOA, delegated to
   * Simple7702Account) or `{ kind: "4337" }` (a SimpleAccount). A user keeps the kind first recorded.
   */
  smartAccount?: SmartAccountOptions;
  /**
   * External wallets (EOA): injected wallets the page announces (EIP-6963) and WalletConnect, as
   * `externalWallets({ … })` of `@latchkey/core/external-wallets` makes them (wagmi is loaded then, on
   * first use; this entry never names it). Their chains are `chains` unless `externalWallets.chains` says
   * otherwise.
   */
  externalWallets?: ExternalWalletsConfig;
  /**
   * Solana, as `solana({ rpcUrl, policyId, chain })` of `@latchkey/core/solana` makes it: the RPC URL to
   * send through, the sponsorship policy (fees paid by the service's fee payer), the cluster the
   * wallet-standard wallet announces, and the sending code (@solana/kit, loaded on the first send).
   */
  solana?: SolanaConfig;
}

/**
 * External wallets as `externalWallets()` of `@latchkey/core/external-wallets` makes them: their options,
 * and the loader of the engine (wagmi's config and the verbs), which the app's import of that entry brings.
 */
export interface ExternalWalletsConfig extends ExternalWalletsOptions {
  /** @internal Loads the engine for one signer, on first use; not a stable API. */
  readonly load: (signer: SignerBase) => Promise<ExternalWalletsEngine>;
}

/** What the signer's store holds (spec §3); `signer.getState()` answers it. */
export interface SignerState {
  user: User | null;
  status: SignerStatus;
  error: SignerStateError | null;
  mfaStatus: { mfaRequired: boolean; mfaFactorId?: string };
  isNewUser?: boolean;
  otpId?: string;
  authLinkingStatus?: { email: string; providerName?: string; idToken: string };
  /** The external wallet (EOA) connection: its status, wallet, account, chain and SIWE proof. */
  externalWallet: ExternalWalletState;
  /**
   * Split custody (docs/split-custody.md): whether this device can sign. `ready`: it holds the user's
   * part of the wallet; `restore_needed`: the wallet exists but this device has no part of it
   * (`restoreWallet`); `creating`: the wallet is being made; `service`: the service keeps the wallet.
   * Absent while nobody is signed in.
   */
  walletAccess?: WalletAccess;
  /** The recovery factors stored for the user's part of a split wallet (`protectWallet`). */
  recovery?: RecoveryFactor[];
}

/** Whether this device can sign for the user (split custody); see `SignerState.walletAccess`. */
export type WalletAccess = "ready" | "restore_needed" | "creating" | "service";
/** A way to restore the user's part of a split wallet on a new device. */
export type RecoveryFactor = "passkey" | "code";

/** Sign in by email: a code or a magic link is mailed (new users are signed up). */
export type EmailAuthenticateParams = {
  type: "email";
  email: string;
  emailMode?: EmailMode;
  redirectParams?: string;
  multiFactors?: MultiFactorCode[];
};

/** Finish an email sign-in with the mailed code. */
export type OtpAuthenticateParams = { type: "otp"; otpCode: string; multiFactors?: MultiFactorCode[] };

/** Sign in with a passkey, or create a new one (and account) with `createNew`. */
export type PasskeyAuthenticateParams = {
  type: "passkey";
  /** Create a passkey and a new account with it (else sign in with an existing passkey). */
  createNew?: boolean;
  /** With an email that has no account yet, a passkey is created too (spec §4). */
  email?: string;
  /** Aborts the passkey prompt (e.g. the modal's Cancel): rejects with a PasskeyCancelledError. */
  signal?: AbortSignal;
};

/**
 * Social sign-in (spec §3, OAuth config plus `type: "oauth"`). Pop-up mode needs `enablePopupOauth` or
 * a prior `preparePopupOauth()`; redirect mode leaves the page and completes on the way back (`init()`).
 */
export type OauthAuthenticateParams = { type: "oauth" } & OauthParams & {
    /** Aborts a pop-up sign-in (e.g. the modal's Back): closes the pop-up, rejects with OauthCancelledError. */
    signal?: AbortSignal;
  };

/** What `authenticate` takes: an email to send a code or link to, a code, a passkey or a social provider. */
export type AuthenticateParams =
  | EmailAuthenticateParams
  | OtpAuthenticateParams
  | PasskeyAuthenticateParams
  | OauthAuthenticateParams;

/** Where `authenticate` left the signer: its status and, once connected, the user. */
export interface AuthenticateResult {
  status: SignerStatus;
  user: User | null;
  /** The provider's ID token of an OAuth sign-in (the only result with `fetchIdTokenOnly`). */
  idToken?: string;
}

/** A credential bundle to sign in with, and how the sign-in came about. */
export interface CompleteAuthWithBundleParams {
  bundle: string;
  orgId: string;
  authenticatingType?: SessionType;
  connectedEventName?: "connected" | "connectedPasskey" | "connectedOauth";
  idToken?: string;
  /** The passkey that signed in (set on the user of a passkey session). */
  credentialId?: string;
}

/**
 * One kind of URL return (spec §9): a flow that left the page and came back with query parameters.
 * `init()` runs every handler of every auth method, in order: the `beforeSession` ones before the stored
 * session is read (they may write one), the `afterSession` ones after (they act for the signed-in user).
 * A handler ignores parameters that are not its own, and keeps its failures in the state.
 */
export interface ReturnHandler {
  readonly name: string;
  readonly phase: "beforeSession" | "afterSession";
  handle(signer: SignerBase, params: AuthUrlParams): Promise<void> | void;
}

/**
 * A way to sign in, shaped like a wagmi connector: a factory makes one per signer, and the state of an
 * attempt (a pending prompt, a prepared pop-up) lives in the factory's closure.
 */
export interface AuthMethod<P extends AuthenticateParams = AuthenticateParams> {
  /** The `authenticate({type})` values it answers. */
  readonly types: readonly P["type"][];
  /**
   * Runs one attempt; awaits `init()` itself, so whatever must happen inside the user's click (opening a
   * pop-up) happens before its first `await`.
   */
  authenticate(signer: SignerBase, params: P): Promise<AuthenticateResult>;
  readonly returnHandlers?: readonly ReturnHandler[];
}

/** What a passkey ceremony needs: the credentials container, the relying party and an abort signal. */
export interface PasskeyCeremony {
  credentials: PasskeyCredentials;
  rpId: string;
  rpName: string;
  signal: AbortSignal;
  /** False once a newer passkey prompt replaced this one. */
  isCurrent(): boolean;
  done(): void;
}

export interface PasskeyMethod extends AuthMethod<PasskeyAuthenticateParams> {
  /** Starts a prompt; a newer one aborts it (browsers allow one at a time). */
  startCeremony(signer: SignerBase, signal?: AbortSignal): PasskeyCeremony;
  /** The user name a new passkey is stored under: the email, or a dated "Passkey …". */
  userName(signer: SignerBase, email?: string): string;
}

/** A pop-up claimed synchronously inside the user's click, or why there is none. */
export type PopupClaim = { popup: Window; error?: undefined } | { popup?: undefined; error: unknown };

export interface OauthMethod extends AuthMethod<OauthAuthenticateParams> {
  /** Opens the blank pop-up for the next pop-up attempt (in the click handler). */
  preparePopup(signer: SignerBase): void;
  /** Synchronous: the prepared pop-up, or a new one when `enablePopupOauth` is on. */
  claimPopup(signer: SignerBase): PopupClaim;
  /** A pop-up round trip that only fetches an ID token (to link the provider); the state does not change. */
  fetchIdToken(
    signer: SignerBase,
    params: Omit<OauthParams, "mode" | "fetchIdTokenOnly">,
    claim: PopupClaim | undefined,
    signal?: AbortSignal,
  ): Promise<{ idToken: string; providerName: string }>;
  /** Leaves the page for the provider to fetch an ID token; only `fetchIdTokenOnly` comes back. */
  redirectForIdToken(
    signer: SignerBase,
    params: Omit<OauthParams, "mode" | "fetchIdTokenOnly">,
  ): Promise<never>;
}

/** The auth methods of one signer, by name (`authMethods/index.ts` makes them). */
export interface SignerAuthMethods {
  email: AuthMethod<EmailAuthenticateParams | OtpAuthenticateParams>;
  passkey: PasskeyMethod;
  oauth: OauthMethod;
}

/** Session lifecycle of one signer (`signer/lifecycle.ts`). */
export interface Lifecycle {
  /** Reads the URL return and the stored session, then watches the session; once. */
  init(): Promise<void>;
  /** Forgets the session in this tab (the key holder's keys; the target key too when asked). */
  disconnectLocally(clearTargetKey: boolean): Promise<void>;
  /** The bundle of the session this tab holds: a session change with the same bundle only updates the user. */
  adoptBundle(bundle: string | undefined): void;
  destroy(): void;
}

/** @internal Wiring of one signer, for actions and auth methods; not a stable API. */
export interface SignerInternals {
  readonly options: SignerOptions;
  readonly emitter: Emitter<SignerEvents>;
  /** Where URL parameters, pop-ups and session events come from; null outside a browser. */
  readonly window: (UrlWindow & SessionEventTarget) | null;
  /** Session lifetime asked of the service. */
  readonly expirationSeconds: number;
  readonly lifecycle: Lifecycle;
  readonly authMethods: SignerAuthMethods;
  /** Smart-account clients made so far, by `chainId:ownerAddress` (smartAccounts/ loads them lazily). */
  readonly smartAccountClients: Map<string, Promise<LatchkeySmartAccountClient>>;
  /**
   * Return handlers of parts that are not auth methods (the external wallet's reconnect on load), run
   * after the auth methods' own.
   */
  readonly returnHandlers: readonly ReturnHandler[];
  /** Parts loaded on first use: the external wallets' engine (wagmi and the connectors). */
  readonly lazy: { externalWallets?: Promise<ExternalWalletsEngine> };
  /**
   * Opens the sign-in (the modal of a mounted `<LatchkeyProvider>`): what `eth_requestAccounts` awaits
   * while signed out when its provider got no `requestAccounts`. Set by `setSignInPrompt`.
   */
  signInPrompt?: () => Promise<void>;
}

/**
 * What actions take as their first parameter (viem's `client`, wagmi's `config`): a {@link Signer}
 * created by `createSigner`.
 */
export interface SignerBase {
  readonly client: SignerClient;
  readonly sessionManager: SessionManager;
  readonly keyHolder: KeyHolder;
  readonly store: Store<SignerState>;
  /** @internal */
  readonly _internal: SignerInternals;
}
