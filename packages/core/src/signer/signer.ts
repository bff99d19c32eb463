import { DEFAULT_SESSION_EXPIRATION_SECONDS } from "@latchkey/protocol";
import { type AddMfaParameters, type AddMfaReturnType, addMfa } from "../actions/addMfa";
import {
  type AddOauthProviderParameters,
  type AddOauthProviderReturnType,
  addOauthProvider,
} from "../actions/addOauthProvider";
import { type AddPasskeyParameters, addPasskey } from "../actions/addPasskey";
import { authenticate } from "../actions/authenticate";
import { completeAuthWithBundle } from "../actions/completeAuthWithBundle";
import { disconnect } from "../actions/disconnect";
import { getMfaFactors } from "../actions/getMfaFactors";
import { type GetPasskeyStatusReturnType, getPasskeyStatus } from "../actions/getPasskeyStatus";
import { type ListAuthMethodsReturnType, listAuthMethods } from "../actions/listAuthMethods";
import { preparePopupOauth } from "../actions/preparePopupOauth";
import { type RemoveMfaParameters, removeMfa } from "../actions/removeMfa";
import { removeOauthProvider } from "../actions/removeOauthProvider";
import { removePasskey } from "../actions/removePasskey";
import { requireUser } from "../actions/requireUser";
import { type ValidateMultiFactorsParameters, validateMultiFactors } from "../actions/validateMultiFactors";
import { type VerifyMfaParameters, verifyMfa } from "../actions/verifyMfa";
import { createAuthMethods } from "../authMethods";
import { SignerClient } from "../client/signerClient";
import type { MultiFactor } from "../errors";
import { defaultKeyHolder } from "../keyHolders/default";
import type { KeyHolder } from "../keyHolders/types";
import { type SessionEventTarget, SessionManager } from "../session/sessionManager";
import type { User } from "../session/types";
import { Emitter, type SignerEvents } from "./events";
import { createLifecycle } from "./lifecycle";
import { deriveEvents, initialSignerState } from "./state";
import type { SignerStatus } from "./status";
import { createStore, type Store } from "./store";
import type {
  AuthenticateParams,
  AuthenticateResult,
  CompleteAuthWithBundleParams,
  SignerBase,
  SignerInternals,
  SignerOptions,
  SignerState,
} from "./types";
import type { UrlWindow } from "./urlParams";

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

  /** See {@link authenticate} (actions/authenticate.ts). */
  authenticate(params: AuthenticateParams): Promise<AuthenticateResult> {
    return authenticate(this, params);
  }
  /** See {@link preparePopupOauth}: call it in the click handler when `enablePopupOauth` is off. */
  preparePopupOauth(): void {
    preparePopupOauth(this);
  }
  /** See {@link validateMultiFactors}: finishes a sign-in that needed a second factor. */
  validateMultiFactors(params: ValidateMultiFactorsParameters): Promise<User> {
    return validateMultiFactors(this, params);
  }
  /** See {@link completeAuthWithBundle}. */
  completeAuthWithBundle(params: CompleteAuthWithBundleParams): Promise<User> {
    return completeAuthWithBundle(this, params);
  }
  /** The signed-in user; throws 'Signer not authenticated' when there is none or the session expired. */
  requireUser(): Promise<User> {
    return requireUser(this);
  }

  /** See {@link listAuthMethods}. */
  listAuthMethods(): Promise<ListAuthMethodsReturnType> {
    return listAuthMethods(this);
  }
  /** See {@link addOauthProvider}. */
  addOauthProvider(params: AddOauthProviderParameters): Promise<AddOauthProviderReturnType> {
    return addOauthProvider(this, params);
  }
  /** See {@link removeOauthProvider}. */
  removeOauthProvider(providerId: string): Promise<void> {
    return removeOauthProvider(this, { providerId });
  }
  /** See {@link getMfaFactors}. */
  getMfaFactors(): Promise<MultiFactor[]> {
    return getMfaFactors(this);
  }
  /** See {@link addMfa}. */
  addMfa(params?: AddMfaParameters): Promise<AddMfaReturnType> {
    return addMfa(this, params);
  }
  /** See {@link verifyMfa}. */
  verifyMfa(params: VerifyMfaParameters): Promise<MultiFactor[]> {
    return verifyMfa(this, params);
  }
  /** See {@link removeMfa}. */
  removeMfa(params: RemoveMfaParameters): Promise<MultiFactor[]> {
    return removeMfa(this, params);
  }
  /** See {@link addPasskey}. */
  addPasskey(params?: AddPasskeyParameters): Promise<string> {
    return addPasskey(this, params);
  }
  /** See {@link removePasskey}. */
  removePasskey(authenticatorId: string): Promise<void> {
    return removePasskey(this, { authenticatorId });
  }
  /** See {@link getPasskeyStatus}. */
  getPasskeyStatus(): Promise<GetPasskeyStatusReturnType> {
    return getPasskeyStatus(this);
  }
}
