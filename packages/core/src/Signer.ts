import { DEFAULT_SESSION_EXPIRATION_SECONDS } from "@latchkey/protocol/wire";
import { type AddMfaParameters, type AddMfaReturnType, addMfa } from "./actions/addMfa";
import {
  type AddOauthProviderParameters,
  type AddOauthProviderReturnType,
  addOauthProvider,
} from "./actions/addOauthProvider";
import { type AddPasskeyParameters, addPasskey } from "./actions/addPasskey";
import { authenticate } from "./actions/authenticate";
import { type CheckConnectionReturnType, checkConnection } from "./actions/checkConnection";
import type { CompleteApprovedActivitiesReturnType } from "./actions/completeApprovedActivities";
import { completeAuthWithBundle } from "./actions/completeAuthWithBundle";
import { disconnect } from "./actions/disconnect";
import type { ExportWalletParameters, ExportWalletReturnType } from "./actions/exportWallet";
import { getMfaFactors } from "./actions/getMfaFactors";
import { type GetPasskeyStatusReturnType, getPasskeyStatus } from "./actions/getPasskeyStatus";
import { type ListAuthMethodsReturnType, listAuthMethods } from "./actions/listAuthMethods";
import { preparePopupOauth } from "./actions/preparePopupOauth";
import type { ProtectWalletParameters, ProtectWalletReturnType } from "./actions/protectWallet";
import { type RemoveEmailParameters, type RemoveEmailReturnType, removeEmail } from "./actions/removeEmail";
import { type RemoveMfaParameters, removeMfa } from "./actions/removeMfa";
import { removeOauthProvider } from "./actions/removeOauthProvider";
import { removePasskey } from "./actions/removePasskey";
import { requireUser } from "./actions/requireUser";
import type { RestoreWalletParameters, RestoreWalletReturnType } from "./actions/restoreWallet";
import {
  type SendVerificationCodeParameters,
  type SendVerificationCodeReturnType,
  sendVerificationCode,
} from "./actions/sendVerificationCode";
import { type SetEmailParameters, type SetEmailReturnType, setEmail } from "./actions/setEmail";
import { type ValidateMultiFactorsParameters, validateMultiFactors } from "./actions/validateMultiFactors";
import { type VerifyMfaParameters, verifyMfa } from "./actions/verifyMfa";
import { createAuthMethods } from "./authMethods";
import { SignerClient } from "./client/signerClient";
import type { MultiFactor } from "./errors";
import { externalWalletRestore } from "./externalWallets/restore";
import { defaultKeyHolder } from "./keyHolders/default";
import type { KeyHolder } from "./keyHolders/types";
import { type SessionEventTarget, SessionManager } from "./session/sessionManager";
import type { User } from "./session/types";
import { checkSignerOptions } from "./signer/checkOptions";
import { Emitter, type SignerEvents } from "./signer/events";
import { createLifecycle } from "./signer/lifecycle";
import { deriveEvents, initialSignerState } from "./signer/state";
import type { SignerStatus } from "./signer/status";
import { createStore, type Store } from "./signer/store";
import type {
  AuthenticateParams,
  AuthenticateResult,
  CompleteAuthWithBundleParams,
  SignerBase,
  SignerInternals,
  SignerOptions,
  SignerState,
  WalletAccess,
} from "./signer/types";
import type { UrlWindow } from "./signer/urlParams";

function browserWindow(): (UrlWindow & SessionEventTarget) | null {
  const g = globalThis as { window?: UrlWindow & SessionEventTarget; document?: unknown };
  return g.window && g.document ? g.window : null;
}

/**
 * The embedded signer: signs users in against the signer service, keeps their session and signs for
 * them. Nothing happens until `init()` (or the first call that needs it): importing and constructing
 * are free of side effects, so it is safe to create during server-side rendering.
 *
 * Each method is one line over an action of `actions/` (which apps may also call as functions, e.g.
 * `addPasskey(signer)`); the state lives in `store`, the events are derived from it.
 *
 * @example
 * const signer = createSigner({ baseUrl: "https://auth.example.com", apiKey });
 * await signer.authenticate({ type: "email", email: "ada@example.com", emailMode: "otp" });
 * await signer.authenticate({ type: "otp", otpCode: "123456" });
 * const account = toViemAccount(signer);
 */
export class Signer implements SignerBase {
  readonly client: SignerClient;
  readonly sessionManager: SessionManager;
  readonly keyHolder: KeyHolder;
  /** The signer's state; `subscribe((s) => s.user, …)` hears only what it selects. */
  readonly store: Store<SignerState>;
  /** @internal Wiring for actions and auth methods; not a stable API. */
  readonly _internal: SignerInternals;

  constructor(options: SignerOptions) {
    checkSignerOptions(options);
    const win = options.window === undefined ? browserWindow() : options.window;
    this.keyHolder = options.keyHolder ?? defaultKeyHolder(options, win);
    this.sessionManager = new SessionManager({
      storage: options.storage,
      sessionKey: options.sessionKey,
      clock: options.clock,
      eventTarget: win,
    });
    this.client = new SignerClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      jwt: options.jwt,
      keyHolder: this.keyHolder,
      fetch: options.fetch,
      now: () => this.sessionManager.clock.now(),
    });
    this.store = createStore(initialSignerState());
    const emitter = new Emitter<SignerEvents>();
    this._internal = {
      options,
      emitter,
      window: win,
      expirationSeconds: options.expirationSeconds ?? DEFAULT_SESSION_EXPIRATION_SECONDS,
      lifecycle: createLifecycle(this),
      authMethods: createAuthMethods(),
      returnHandlers: [externalWalletRestore],
      smartAccountClients: new Map(),
      lazy: {},
    };
    deriveEvents(this.store, emitter);
  }

  getState(): Readonly<SignerState> {
    return this.store.getState();
  }
  get status(): SignerStatus {
    return this.store.getState().status;
  }
  get user(): User | null {
    return this.store.getState().user;
  }
  on<K extends keyof SignerEvents>(event: K, listener: (payload: SignerEvents[K]) => void): () => void {
    return this._internal.emitter.on(event, listener);
  }

  /**
   * Completes a flow that came back in the URL (magic link, OAuth redirect, linking prompt, provider
   * link), loads the stored session and starts watching it; runs once, and every other method awaits it.
   */
  init(): Promise<void> {
    return this._internal.lifecycle.init();
  }
  /** Signs out: forgets the session here and in every tab, and deletes the key holder's keys. */
  disconnect(): Promise<void> {
    return disconnect(this);
  }
  /** Stops listening to session changes and releases the key holder. */
  destroy(): void {
    this._internal.lifecycle.destroy();
  }

  /**
   * Signs in by `type` ("email", "otp", "passkey", "oauth"); settles when the step it started settles
   * (actions/authenticate.ts).
   */
  authenticate(params: AuthenticateParams): Promise<AuthenticateResult> {
    return authenticate(this, params);
  }
  /** Opens the blank sign-in pop-up in the click handler when `enablePopupOauth` is off. */
  preparePopupOauth(): void {
    preparePopupOauth(this);
  }
  /** Finishes a sign-in that needed a second factor, with the TOTP code. */
  validateMultiFactors(params: ValidateMultiFactorsParameters): Promise<User> {
    return validateMultiFactors(this, params);
  }
  /** Injects a credential bundle, reads the user with it and stores the session. */
  completeAuthWithBundle(params: CompleteAuthWithBundleParams): Promise<User> {
    return completeAuthWithBundle(this, params);
  }
  /** The signed-in user; throws 'Signer not authenticated' when there is none or the session expired. */
  requireUser(): Promise<User> {
    return requireUser(this);
  }

  /** The user's ways to sign in (email, OAuth providers, passkeys, MFA factors). */
  listAuthMethods(): Promise<ListAuthMethodsReturnType> {
    return listAuthMethods(this);
  }
  /** Links a social sign-in to the user (ID token, pop-up or redirect); answers the linked providers. */
  addOauthProvider(params: AddOauthProviderParameters): Promise<AddOauthProviderReturnType> {
    return addOauthProvider(this, params);
  }
  /** Unlinks an OAuth provider; 'OAuth providers not found' when the user has no such link. */
  removeOauthProvider(providerId: string): Promise<void> {
    return removeOauthProvider(this, { providerId });
  }
  /** The user's second factors. */
  getMfaFactors(): Promise<MultiFactor[]> {
    return getMfaFactors(this);
  }
  /** Starts adding a TOTP factor: its id and the `otpauth://` URL to show as a QR code. */
  addMfa(params?: AddMfaParameters): Promise<AddMfaReturnType> {
    return addMfa(this, params);
  }
  /** Confirms a new factor with a code from the authenticator app. */
  verifyMfa(params: VerifyMfaParameters): Promise<MultiFactor[]> {
    return verifyMfa(this, params);
  }
  /** Removes second factors; answers the user's remaining ones. */
  removeMfa(params: RemoveMfaParameters): Promise<MultiFactor[]> {
    return removeMfa(this, params);
  }
  /** Adds a passkey to the user (the prompt excludes their existing ones); answers its authenticator id. */
  addPasskey(params?: AddPasskeyParameters): Promise<string> {
    return addPasskey(this, params);
  }
  /** Removes one of the user's passkeys; the last way to sign in cannot be removed (LAST_AUTH_METHOD). */
  removePasskey(authenticatorId: string): Promise<void> {
    return removePasskey(this, { authenticatorId });
  }
  /** Whether the user has a passkey, and which. */
  getPasskeyStatus(): Promise<GetPasskeyStatusReturnType> {
    return getPasskeyStatus(this);
  }
  /** Mails a code that proves an address, the first step of `setEmail`. */
  sendVerificationCode(params: SendVerificationCodeParameters): Promise<SendVerificationCodeReturnType> {
    return sendVerificationCode(this, params);
  }
  /** Makes a proven address the user's email sign-in; the session stays. */
  setEmail(params: SetEmailParameters): Promise<SetEmailReturnType> {
    return setEmail(this, params);
  }
  /** Turns off email sign-in (never the last way to sign in). */
  removeEmail(params?: RemoveEmailParameters): Promise<RemoveEmailReturnType> {
    return removeEmail(this, params);
  }
  /** Shows the recovery phrase in the service's export frame (needs a fresh sign-in); loaded on first use. */
  async exportWallet(params: ExportWalletParameters): Promise<ExportWalletReturnType> {
    const { exportWallet } = await import("./actions/exportWallet");
    return exportWallet(this, params);
  }
  /**
   * Split custody: whether this device can sign (`ready`), must restore the user's part of the wallet
   * first (`restore_needed`), is making the wallet (`creating`), or the service keeps it (`service`).
   */
  get walletAccess(): WalletAccess | undefined {
    return this.store.getState().walletAccess;
  }
  /** Split custody: keeps a copy of this device's part, under a passkey's PRF or a code shown once. */
  async protectWallet(params: ProtectWalletParameters): Promise<ProtectWalletReturnType> {
    const { protectWallet } = await import("./actions/protectWallet");
    return protectWallet(this, params);
  }
  /** Split custody: puts this device's part back, from the passkey or the recovery code. */
  async restoreWallet(params: RestoreWalletParameters): Promise<RestoreWalletReturnType> {
    const { restoreWallet } = await import("./actions/restoreWallet");
    return restoreWallet(this, params);
  }
  /**
   * Split custody: completes, with this device's part, the held signatures an app admin approved while
   * the app was closed (docs/split-custody.md §7). Call it after sign-in.
   */
  async completeApprovedActivities(): Promise<CompleteApprovedActivitiesReturnType> {
    const { completeApprovedActivities } = await import("./actions/completeApprovedActivities");
    return completeApprovedActivities(this);
  }
  /** Whether this page can use the service (API, origin, key, auth frame); never throws. */
  checkConnection(): Promise<CheckConnectionReturnType> {
    return checkConnection(this);
  }
}
