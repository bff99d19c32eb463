import { DEFAULT_SESSION_EXPIRATION_SECONDS, type EmailMode } from "@latchkey/protocol";
import type { OauthPopupMessage } from "@latchkey/protocol/schemas";
import type { Hex } from "viem";
import { SignerClient } from "../client/signerClient";
import type { AuthMethods, MultiFactorCode, PasskeyCredentials, PasskeyStatus } from "../client/types";
import {
  LatchkeyError,
  MfaRequiredError,
  type MultiFactor,
  PasskeyError,
  SignerApiError,
  SignerError,
} from "../errors";
import { createIframeKeyHolder } from "../keyHolders/iframe";
import type { KeyHolder } from "../keyHolders/types";
import {
  buildOauthUrl,
  OauthCancelledError,
  OauthError,
  type OauthParams,
  openOauthPopup,
  redirectToOauth,
  sha256Hex,
  waitForPopupMessage,
} from "../oauth/oauth";
import type { Clock } from "../session/clock";
import { type SessionChange, type SessionEventTarget, SessionManager } from "../session/sessionManager";
import type { SessionStorageLike } from "../session/storage";
import type { Session, SessionType, User } from "../session/types";
import { Emitter, type SignerEvents, type SignerStateError } from "./events";
import { SignerStatus } from "./status";
import { readAuthUrlParams, type UrlWindow } from "./urlParams";

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
}

export interface SignerState {
  user: User | null;
  status: SignerStatus;
  error: SignerStateError | null;
  mfaStatus: { mfaRequired: boolean; mfaFactorId?: string };
  isNewUser?: boolean;
  otpId?: string;
  authLinkingStatus?: { email: string; providerName?: string; idToken: string };
}

export type AuthenticateParams =
  | {
      type: "email";
      email: string;
      emailMode?: EmailMode;
      redirectParams?: string;
      multiFactors?: MultiFactorCode[];
    }
  | { type: "otp"; otpCode: string; multiFactors?: MultiFactorCode[] }
  | {
      type: "passkey";
      /** Create a passkey and a new account with it (else sign in with an existing passkey). */
      createNew?: boolean;
      /** With an email that has no account yet, a passkey is created too (spec §4). */
      email?: string;
      /** Aborts the passkey prompt (e.g. the modal's Cancel): rejects with a PasskeyCancelledError. */
      signal?: AbortSignal;
    }
  | OauthAuthenticateParams;

/**
 * Social sign-in (spec §3, OAuth config plus `type: "oauth"`). Pop-up mode needs `enablePopupOauth` or
 * a prior `preparePopupOauth()`; redirect mode leaves the page and completes on the way back (`init()`).
 */
export type OauthAuthenticateParams = { type: "oauth" } & OauthParams & {
    /** Aborts a pop-up sign-in (e.g. the modal's Back): closes the pop-up, rejects with OauthCancelledError. */
    signal?: AbortSignal;
  };

export interface AuthenticateResult {
  status: SignerStatus;
  user: User | null;
  /** The provider's ID token of an OAuth sign-in (the only result with `fetchIdTokenOnly`). */
  idToken?: string;
}

/**
 * Links a social sign-in to the signed-in user: an ID token that this app's OAuth callback issued
 * (`{providerName, oidcToken}`), or one fetched in a pop-up (`{authProviderId, mode: "popup"}`).
 */
export type AddOauthProviderParams =
  | { providerName: string; oidcToken: string }
  | (Omit<OauthParams, "mode" | "redirectUrl" | "fetchIdTokenOnly"> & {
      mode?: "popup";
      signal?: AbortSignal;
    })
  | (Omit<OauthParams, "mode" | "fetchIdTokenOnly"> & {
      /**
       * The page leaves for the provider and comes back (to `redirectUrl`, by default this page); the
       * provider is linked on load and `oauthProviderAdded` fires (or the error is in the state).
       */
      mode: "redirect";
    });

/** How long a redirect started by `addOauthProvider` may take to come back (the service's request TTL). */
const OAUTH_LINK_INTENT_TTL_MS = 10 * 60 * 1000;

interface OauthLinkIntent {
  authProviderId: string;
  userId: string;
  startedAtMs: number;
}

export interface CompleteAuthWithBundleParams {
  bundle: string;
  orgId: string;
  authenticatingType?: SessionType;
  connectedEventName?: "connected" | "connectedPasskey" | "connectedOauth";
  idToken?: string;
  /** The passkey that signed in (set on the user of a passkey session). */
  credentialId?: string;
}

interface PasskeyCeremony {
  credentials: PasskeyCredentials;
  rpId: string;
  rpName: string;
  signal: AbortSignal;
  /** False once a newer passkey prompt replaced this one. */
  isCurrent(): boolean;
  done(): void;
}

type BrowserGlobals = { window?: UrlWindow & SessionEventTarget; document?: unknown };

function browserWindow(): (UrlWindow & SessionEventTarget) | null {
  const g = globalThis as BrowserGlobals;
  return g.window && g.document ? g.window : null;
}

/** The window social sign-in needs (pop-up, messages, navigation). */
type OauthWindow = Window;

/** A pop-up claimed synchronously inside the user's click, or why there is none. */
type PopupClaim = { popup: Window; error?: undefined } | { popup?: undefined; error: unknown };

function errorState(error: unknown): SignerStateError {
  if (error instanceof LatchkeyError) return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

/**
 * The embedded signer: signs users in against the signer service, keeps their session and signs for
 * them. Nothing happens until `init()` (or the first call that needs it): importing and constructing
 * are free of side effects, so it is safe to create during server-side rendering.
 *
 * @example
 * const signer = createSigner({ baseUrl: "https://auth.example.com", apiKey });
 * await signer.authenticate({ type: "email", email: "ada@example.com", emailMode: "otp" });
 * await signer.authenticate({ type: "otp", otpCode: "123456" });
 * const account = signer.toViemAccount();
 */
export class Signer {
  readonly client: SignerClient;
  readonly sessionManager: SessionManager;
  readonly keyHolder: KeyHolder;
  readonly #options: SignerOptions;
  readonly #events = new Emitter<SignerEvents>();
  #state: SignerState = {
    user: null,
    status: SignerStatus.INITIALIZING,
    error: null,
    mfaStatus: { mfaRequired: false },
  };
  #init: Promise<void> | undefined;
  #unwatch: (() => void) | undefined;
  #currentBundle: string | undefined;
  #rootOrgId: string | undefined;
  /** The pending passkey prompt: a new one aborts it (browsers allow one at a time). */
  #ceremony: AbortController | undefined;
  /** A blank pop-up opened by `preparePopupOauth()`, kept for the next pop-up sign-in. */
  #preparedPopup: Window | undefined;
  /** The pending social sign-in: a new one cancels it (one pop-up at a time). */
  #oauthAttempt: AbortController | undefined;
  /** Counts social sign-in attempts: an attempt is current until a newer one starts. */
  #oauthGeneration = 0;

  constructor(options: SignerOptions) {
    this.#options = options;
    const win = options.window === undefined ? browserWindow() : options.window;
    const frameUrl = new URL(`${options.baseUrl.replace(/\/+$/, "")}/frames/auth`);
    if (options.appId) frameUrl.searchParams.set("appId", options.appId);
    this.keyHolder =
      options.keyHolder ??
      (win
        ? createIframeKeyHolder({
            frameUrl: frameUrl.toString(),
            ...(options.iframeContainer ? { container: options.iframeContainer } : {}),
          })
        : lazyMemoryKeyHolder());
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
  }

  // ---- state and events ----

  getState(): Readonly<SignerState> {
    return this.#state;
  }

  get status(): SignerStatus {
    return this.#state.status;
  }

  get user(): User | null {
    return this.#state.user;
  }

  on<K extends keyof SignerEvents>(event: K, listener: (payload: SignerEvents[K]) => void): () => void {
    return this.#events.on(event, listener);
  }

  #set(patch: Partial<SignerState>): void {
    const prev = this.#state;
    this.#state = { ...prev, ...patch };
    if (patch.status && patch.status !== prev.status) this.#events.emit("statusChanged", patch.status);
    if ("error" in patch && patch.error !== prev.error)
      this.#events.emit("errorChanged", patch.error ?? null);
  }

  /**
   * Fires `connected` on the first set (and the method's own event, e.g. `connectedPasskey`) and
   * `disconnected` on clearing (spec §4).
   */
  #setUser(
    user: User | null,
    connectedEventName: CompleteAuthWithBundleParams["connectedEventName"] = "connected",
  ) {
    const prev = this.#state.user;
    this.#set({ user });
    if (!prev && user) {
      this.#events.emit("connected", user);
      if (connectedEventName !== "connected") this.#events.emit(connectedEventName, user);
    }
    if (prev && !user) this.#events.emit("disconnected", undefined);
  }

  #fail(error: unknown, status: SignerStatus = SignerStatus.DISCONNECTED): never {
    this.#set({ error: errorState(error), status });
    throw error;
  }

  // ---- lifecycle ----

  /**
   * Loads the stored session (or completes a magic-link sign-in from the URL) and starts watching the
   * session; runs once, and every other method awaits it.
   */
  init(): Promise<void> {
    this.#init ??= this.#doInit();
    return this.#init;
  }

  async #doInit(): Promise<void> {
    const win = this.#options.window === undefined ? browserWindow() : this.#options.window;
    let params: ReturnType<typeof readAuthUrlParams>["params"] = {};
    if (win) {
      const read = readAuthUrlParams(win.location.href);
      params = read.params;
      if (read.strippedUrl) win.history.replaceState(win.history.state, "", read.strippedUrl);
    }
    if (params.error) this.#set({ error: { name: "AuthError", message: params.error } });

    let linkingPrompt:
      | { orgId: string; otpId: string; email: string; providerName: string; idToken: string }
      | undefined;
    if (params.bundle && params.orgId) {
      // A social sign-in's redirect carries the ID token (and the provider); a magic link does not.
      const oauth = Boolean(params.idToken || params.authProvider);
      try {
        if (oauth && params.isSignup) {
          this.#set({ isNewUser: true });
          this.#events.emit("newUserSignup", undefined);
        }
        await this.#completeAuthWithBundle(
          {
            bundle: params.bundle,
            orgId: params.orgId,
            authenticatingType: oauth ? "oauth" : "email",
            connectedEventName: oauth ? "connectedOauth" : "connected",
            idToken: params.idToken,
          },
          oauth ? { isNewUser: params.isSignup === true } : params.isSignup ? { isNewUser: true } : {},
        );
      } catch {
        // The error is in the state; the app shows it on its initial step.
      }
    } else if (params.status === "ACCOUNT_LINKING_CONFIRMATION_REQUIRED") {
      if (!params.otpId || !params.email || !params.idToken || !params.orgId || !params.authProvider) {
        this.#set({ error: errorState(new SignerError("AUTH_LINKING_PARAMS_MISSING")) });
      } else {
        linkingPrompt = {
          orgId: params.orgId,
          otpId: params.otpId,
          email: params.email,
          providerName: params.authProvider,
          idToken: params.idToken,
        };
      }
    }

    if (!this.#state.user) await this.#restore(this.sessionManager.getSession());
    const temporary = this.sessionManager.getTemporarySession();
    if (temporary?.otpId && !this.#state.otpId) this.#set({ otpId: temporary.otpId });
    if (temporary?.authLinking && !this.#state.authLinkingStatus && !this.#state.user)
      this.#set({ authLinkingStatus: temporary.authLinking });
    // After the stored session is read, so the prompt's status is the last word.
    if (linkingPrompt) this.#promptAuthLinking(linkingPrompt);
    if (params.status === "FETCHED_ID_TOKEN_ONLY" || (params.error && !params.bundle))
      await this.#finishOauthLinkRedirect(params);
    this.#unwatch = this.sessionManager.watch((change) => {
      void this.#onSessionChange(change);
    });
  }

  async #restore(session: Session | null): Promise<void> {
    if (!session) {
      this.#currentBundle = undefined;
      this.#set({ status: SignerStatus.DISCONNECTED });
      return;
    }
    try {
      await this.keyHolder.injectCredentialBundle(session.bundle);
      this.#currentBundle = session.bundle;
      this.#setUser(session.user);
      this.#set({ status: SignerStatus.CONNECTED });
    } catch {
      // A bundle the key holder can no longer open (its target key is gone) is a dead session.
      this.sessionManager.clearSession();
      this.#currentBundle = undefined;
      this.#setUser(null);
      this.#set({ status: SignerStatus.DISCONNECTED });
    }
  }

  async #onSessionChange(change: SessionChange): Promise<void> {
    if (change.reason === "expired") {
      await this.#disconnectLocally(true);
      return;
    }
    if (!change.session) {
      // Another tab signed out: it already cleared the shared target key.
      await this.#disconnectLocally(false);
      return;
    }
    if (change.session.bundle === this.#currentBundle) {
      this.#set({ user: change.session.user });
      return;
    }
    await this.#restore(change.session);
  }

  async #disconnectLocally(clearTargetKey: boolean): Promise<void> {
    this.#currentBundle = undefined;
    try {
      await this.keyHolder.clear({ targetKey: clearTargetKey });
    } finally {
      this.#setUser(null);
      this.#set({
        status: SignerStatus.DISCONNECTED,
        otpId: undefined,
        isNewUser: undefined,
        authLinkingStatus: undefined,
        mfaStatus: { mfaRequired: false },
      });
    }
  }

  /** Signs out: forgets the session here and in every tab, and deletes the key holder's keys. */
  async disconnect(): Promise<void> {
    await this.init();
    this.sessionManager.clearSession();
    await this.#disconnectLocally(true);
  }

  /** Stops listening to session changes and releases the key holder. */
  destroy(): void {
    this.#unwatch?.();
    this.keyHolder.destroy?.();
  }

  // ---- authentication ----

  /**
   * `{type: "email"}` settles once the code or link is sent (status AWAITING_OTP_AUTH or
   * AWAITING_EMAIL_AUTH); `{type: "otp"}` settles when connected or when MFA is required.
   */
  async authenticate(params: AuthenticateParams): Promise<AuthenticateResult> {
    // A pop-up opens only inside the user's click: before anything is awaited.
    const claim = params.type === "oauth" && params.mode === "popup" ? this.#claimPopup() : undefined;
    try {
      await this.init();
    } catch (error) {
      claim?.popup?.close();
      throw error;
    }
    if (params.type === "oauth") return this.#authenticateWithOauth(params, claim);
    if (params.type === "email") return this.#authenticateWithEmail(params);
    if (params.type === "passkey") return this.#authenticateWithPasskey(params);
    return this.#submitOtpCode(params);
  }

  async #authenticateWithEmail(
    params: Extract<AuthenticateParams, { type: "email" }>,
  ): Promise<AuthenticateResult> {
    const linking = this.#state.authLinkingStatus;
    // A pending provider link belongs to its own email: another address drops it.
    if (linking && linking.email.toLowerCase() !== params.email.trim().toLowerCase()) {
      this.#set({ error: null, authLinkingStatus: undefined });
    } else this.#set({ error: null });
    try {
      const emailMode =
        params.emailMode ??
        ((await this.client.signerConfig()).email.mode === "MAGIC_LINK" ? "magicLink" : "otp");
      if (emailMode === "otp") this.#events.emit("authenticating", { type: "otp" });
      const targetPublicKey = await this.keyHolder.initTargetKey();
      const expirationSeconds = this.#expirationSeconds();
      const request = {
        email: params.email,
        emailMode,
        targetPublicKey,
        expirationSeconds,
        ...(params.redirectParams ? { redirectParams: params.redirectParams } : {}),
        ...(this.#options.redirectUrl ? { redirectUrl: this.#options.redirectUrl } : {}),
      };
      const issuedAtMs = this.sessionManager.clock.now();
      const { orgId: existingOrgId } = await this.client.lookup({ email: params.email });
      let orgId: string;
      let otpId: string | undefined;
      let isNewUser = false;
      if (existingOrgId) {
        try {
          ({ orgId, otpId } = await this.client.auth({
            ...request,
            ...(params.multiFactors ? { multiFactors: params.multiFactors } : {}),
          }));
        } catch (error) {
          if (error instanceof SignerApiError && error.multiFactors?.length) {
            const mfaFactorId = error.multiFactors[0]?.multiFactorId;
            this.sessionManager.setTemporarySession({ orgId: existingOrgId, mfaFactorId });
            this.#set({
              mfaStatus: { mfaRequired: true, mfaFactorId },
              status: SignerStatus.AWAITING_MFA_AUTH,
            });
            throw new MfaRequiredError(error.multiFactors, { cause: error });
          }
          throw error;
        }
      } else {
        ({ orgId, otpId } = await this.client.signup(request));
        isNewUser = true;
      }
      const stillLinking = this.#state.authLinkingStatus;
      this.sessionManager.setTemporarySession({
        orgId,
        isNewUser,
        ...(otpId ? { otpId } : {}),
        ...(emailMode === "magicLink" ? { issuedAtMs } : {}),
        ...(stillLinking ? { authLinking: stillLinking } : {}),
      });
      const status = emailMode === "otp" ? SignerStatus.AWAITING_OTP_AUTH : SignerStatus.AWAITING_EMAIL_AUTH;
      this.#set({ otpId, isNewUser, status });
      if (isNewUser) this.#events.emit("newUserSignup", undefined);
      return { status, user: null };
    } catch (error) {
      if (error instanceof MfaRequiredError) {
        this.#set({ error: errorState(error) });
        throw error;
      }
      this.#fail(error);
    }
  }

  async #submitOtpCode(params: Extract<AuthenticateParams, { type: "otp" }>): Promise<AuthenticateResult> {
    const temporary = this.sessionManager.getTemporarySession();
    if (!temporary) throw new SignerError("EMAIL_AUTH_SESSION_NOT_FOUND");
    if (!temporary.orgId) throw new SignerError("ORG_ID_NOT_IN_SESSION");
    if (!temporary.otpId) throw new SignerError("OTP_ID_NOT_IN_SESSION");
    this.#set({ error: null });
    this.#events.emit("authenticating", { type: "otpVerify" });
    try {
      const targetPublicKey = await this.keyHolder.initTargetKey();
      const response = await this.client.otp({
        orgId: temporary.orgId,
        otpId: temporary.otpId,
        otpCode: params.otpCode,
        targetPublicKey,
        expirationSeconds: this.#expirationSeconds(),
        ...(params.multiFactors ? { multiFactors: params.multiFactors } : {}),
      });
      if (response.status === "MFA_REQUIRED") {
        const mfaFactorId = response.multiFactors[0]?.multiFactorId;
        this.sessionManager.setTemporarySession({
          ...temporary,
          encryptedPayload: response.encryptedPayload,
          mfaFactorId,
        });
        this.#set({ mfaStatus: { mfaRequired: true, mfaFactorId }, status: SignerStatus.AWAITING_MFA_AUTH });
        return { status: SignerStatus.AWAITING_MFA_AUTH, user: null };
      }
      const user = await this.#completeAuthWithBundle({
        bundle: response.credentialBundle,
        orgId: temporary.orgId,
        authenticatingType: "otp",
      });
      return { status: SignerStatus.CONNECTED, user };
    } catch (error) {
      this.#fail(error);
    }
  }

  // ---- social sign-in (OAuth) ----

  #oauthWindow(): OauthWindow | null {
    const win = this.#options.window === undefined ? browserWindow() : this.#options.window;
    return win && typeof (win as Partial<OauthWindow>).open === "function" ? (win as OauthWindow) : null;
  }

  #oauthCallbackUrl(): string {
    return this.#options.oauthCallbackUrl ?? `${this.client.baseUrl}/oauth/callback`;
  }

  /**
   * Opens the sign-in pop-up now, blank, for the next pop-up `authenticate({type: "oauth"})`: call it
   * in the click handler when `enablePopupOauth` is off (browsers only let a click open a window).
   */
  preparePopupOauth(): void {
    if (this.#preparedPopup && !this.#preparedPopup.closed) return;
    const win = this.#oauthWindow();
    if (!win) throw new OauthError("OAUTH_UNSUPPORTED");
    this.#preparedPopup = openOauthPopup(win);
  }

  /** Synchronous: the prepared pop-up, or a new one when `enablePopupOauth` is on. */
  #claimPopup(): PopupClaim {
    const prepared = this.#preparedPopup;
    this.#preparedPopup = undefined;
    if (prepared && !prepared.closed) return { popup: prepared };
    if (!this.#options.enablePopupOauth) return { error: new OauthError("OAUTH_POPUP_NOT_PREPARED") };
    const win = this.#oauthWindow();
    if (!win) return { error: new OauthError("OAUTH_UNSUPPORTED") };
    try {
      return { popup: openOauthPopup(win) };
    } catch (error) {
      return { error };
    }
  }

  /**
   * One round trip to the provider: the target key's hash as the nonce, prepare-oauth, the provider
   * URL; then the pop-up's message, or (redirect) leaving the page.
   */
  async #oauthRoundTrip(
    params: OauthParams,
    claim: PopupClaim | undefined,
    signal: AbortSignal,
  ): Promise<OauthPopupMessage> {
    if (claim?.error) throw claim.error;
    const win = this.#oauthWindow();
    if (!win) throw new OauthError("OAUTH_UNSUPPORTED");
    const targetPublicKey = await this.keyHolder.initTargetKey();
    const nonce = await sha256Hex(targetPublicKey);
    const prepared = await this.client.prepareOauth({ nonce });
    const callbackUrl = this.#oauthCallbackUrl();
    const common = {
      prepared,
      targetPublicKey,
      nonce,
      callbackUrl,
      params: { ...params, expirationSeconds: params.expirationSeconds ?? this.#expirationSeconds() },
    };
    if (params.mode === "redirect") {
      // Back to this page by default, without a previous attempt's parameters (and no fragment).
      const here = new URL(readAuthUrlParams(win.location.href).strippedUrl ?? win.location.href);
      here.hash = "";
      const url = buildOauthUrl({ ...common, redirectUrl: params.redirectUrl ?? here.toString() });
      return redirectToOauth(win, url);
    }
    const popup = claim?.popup;
    if (!popup) throw new OauthError("OAUTH_POPUP_NOT_PREPARED");
    const url = buildOauthUrl({ ...common, openerOrigin: win.location.origin });
    if (signal.aborted || popup.closed) throw new OauthCancelledError({ cause: signal.reason });
    popup.location.href = url;
    return waitForPopupMessage({ win, popup, serviceOrigin: new URL(callbackUrl).origin, signal });
  }

  /** Runs a round trip as the current social sign-in: a newer one, or `signal`, cancels it. */
  async #oauthAttemptRun<T>(
    claim: PopupClaim | undefined,
    userSignal: AbortSignal | undefined,
    run: (signal: AbortSignal, isCurrent: () => boolean) => Promise<T>,
  ): Promise<T> {
    this.#oauthAttempt?.abort();
    const attempt = new AbortController();
    this.#oauthAttempt = attempt;
    const generation = ++this.#oauthGeneration;
    const onAbort = () => attempt.abort(userSignal?.reason);
    if (userSignal?.aborted) onAbort();
    else userSignal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await run(attempt.signal, () => this.#oauthGeneration === generation);
    } finally {
      userSignal?.removeEventListener("abort", onAbort);
      if (claim?.popup && !claim.popup.closed) claim.popup.close();
      if (this.#oauthAttempt === attempt) this.#oauthAttempt = undefined;
    }
  }

  async #authenticateWithOauth(
    params: OauthAuthenticateParams,
    claim: PopupClaim | undefined,
  ): Promise<AuthenticateResult> {
    const { type: _type, signal, ...oauth } = params;
    if (oauth.fetchIdTokenOnly) {
      // Only an ID token (e.g. to link a provider): the signer's state does not change.
      return this.#oauthAttemptRun(claim, signal, async (attemptSignal) => {
        const message = await this.#oauthRoundTrip(oauth, claim, attemptSignal);
        const idToken = this.#fetchedIdToken(message);
        return { status: this.#state.status, user: this.#state.user, idToken };
      });
    }
    // Spec §4: an OAuth error sets the error but does not force DISCONNECTED; the status goes back to
    // what it was before this attempt (DISCONNECTED for a visitor).
    const before = this.#state.status;
    const restoreTo =
      before === SignerStatus.AUTHENTICATING_OAUTH ||
      before === SignerStatus.AUTHENTICATING_EMAIL ||
      before === SignerStatus.AUTHENTICATING_PASSKEY ||
      before === SignerStatus.INITIALIZING
        ? this.#state.user
          ? SignerStatus.CONNECTED
          : SignerStatus.DISCONNECTED
        : before;
    this.#set({ error: null, status: SignerStatus.AUTHENTICATING_OAUTH, authLinkingStatus: undefined });
    this.#events.emit("authenticating", { type: "oauth" });
    let isCurrent = () => true;
    try {
      return await this.#oauthAttemptRun(claim, signal, async (attemptSignal, current) => {
        isCurrent = current;
        const message = await this.#oauthRoundTrip(oauth, claim, attemptSignal);
        return this.#onOauthMessage(message, oauth);
      });
    } catch (error) {
      // An attempt replaced by a newer one leaves the state to the newer one.
      if (!isCurrent()) throw error;
      this.#set({
        error: errorState(error),
        ...(this.#state.status === SignerStatus.AUTHENTICATING_OAUTH ? { status: restoreTo } : {}),
      });
      throw error;
    }
  }

  #fetchedIdToken(message: OauthPopupMessage): string {
    if (message.status === "FETCHED_ID_TOKEN_ONLY" && message.idToken) return message.idToken;
    throw new OauthError("OAUTH_FAILED", message.error ?? "The provider did not return an ID token");
  }

  /** What the pop-up answered (spec §4, pop-up outcomes). */
  async #onOauthMessage(message: OauthPopupMessage, params: OauthParams): Promise<AuthenticateResult> {
    if (message.status === "SUCCESS") {
      if (!message.bundle || !message.orgId)
        throw new OauthError("OAUTH_FAILED", "The sign-in answer is incomplete");
      const isNewUser = message.isSignup === true;
      if (isNewUser) {
        this.#set({ isNewUser: true });
        this.#events.emit("newUserSignup", undefined);
      }
      const user = await this.#completeAuthWithBundle(
        {
          bundle: message.bundle,
          orgId: message.orgId,
          authenticatingType: "oauth",
          connectedEventName: "connectedOauth",
          idToken: message.idToken,
        },
        { isNewUser },
      );
      return {
        status: SignerStatus.CONNECTED,
        user,
        ...(message.idToken ? { idToken: message.idToken } : {}),
      };
    }
    if (message.status === "ACCOUNT_LINKING_CONFIRMATION_REQUIRED") {
      if (!message.otpId || !message.email || !message.orgId || !message.idToken)
        throw new SignerError("AUTH_LINKING_PARAMS_MISSING");
      this.#promptAuthLinking({
        orgId: message.orgId,
        otpId: message.otpId,
        email: message.email,
        providerName: message.authProvider ?? params.authProviderId,
        idToken: message.idToken,
      });
      return { status: SignerStatus.AWAITING_OTP_AUTH, user: null, idToken: message.idToken };
    }
    if (message.status === "FETCHED_ID_TOKEN_ONLY") {
      const idToken = this.#fetchedIdToken(message);
      return { status: this.#state.status, user: this.#state.user, idToken };
    }
    // The service answers a cancel at the provider with the spec's 'OAuth cancelled'.
    if (message.error === "OAuth cancelled") throw new OauthCancelledError();
    throw new OauthError("OAUTH_FAILED", message.error ?? "OAuth sign-in failed");
  }

  /**
   * The provider's email belongs to an existing account: an email code was mailed to it. The temporary
   * session gets the code's ids, so `authenticate({type: "otp", otpCode})` signs in and then links the
   * provider with the ID token.
   */
  #promptAuthLinking(args: {
    orgId: string;
    otpId: string;
    email: string;
    providerName: string;
    idToken: string;
  }): void {
    const authLinkingStatus = { email: args.email, providerName: args.providerName, idToken: args.idToken };
    this.sessionManager.setTemporarySession({
      orgId: args.orgId,
      otpId: args.otpId,
      authLinking: authLinkingStatus,
    });
    this.#set({ otpId: args.otpId, authLinkingStatus, status: SignerStatus.AWAITING_OTP_AUTH });
    this.#events.emit("emailAuthLinkingRequired", authLinkingStatus);
  }

  /**
   * Links a social sign-in to the signed-in user and answers the user's providers: with an ID token
   * (`{providerName, oidcToken}`, e.g. from a FETCHED_ID_TOKEN_ONLY answer), or by fetching one in a
   * pop-up (`{authProviderId}`; call it in the click handler, as for a pop-up sign-in).
   */
  async addOauthProvider(params: AddOauthProviderParams): Promise<AuthMethods["oauthProviders"]> {
    if (!("oidcToken" in params) && params.mode === "redirect")
      return this.#addOauthProviderByRedirect(params);
    const claim = "oidcToken" in params ? undefined : this.#claimPopup();
    try {
      const user = await this.requireUser();
      let providerName: string;
      let oidcToken: string;
      if ("oidcToken" in params) {
        ({ providerName, oidcToken } = params);
      } else {
        const { signal, mode: _mode, ...rest } = params;
        const oauth: OauthParams = { ...rest, mode: "popup", fetchIdTokenOnly: true };
        const message = await this.#oauthAttemptRun(claim, signal, (attemptSignal) =>
          this.#oauthRoundTrip(oauth, claim, attemptSignal),
        );
        oidcToken = this.#fetchedIdToken(message);
        providerName = message.authProvider ?? params.authProviderId;
      }
      return await this.#linkProvider(user, providerName, oidcToken);
    } finally {
      if (claim?.popup && !claim.popup.closed) claim.popup.close();
    }
  }

  /** Links an ID token to the user, with this browser's target key (a fetched token needs it). */
  async #linkProvider(
    user: User,
    providerName: string,
    oidcToken: string,
  ): Promise<AuthMethods["oauthProviders"]> {
    const targetPublicKey = await this.keyHolder.getTargetPublicKey();
    const { oauthProviders } = await this.client.addOauthProvider({
      orgId: user.orgId,
      userId: user.userId,
      oauthProviders: [{ providerName, oidcToken, ...(targetPublicKey ? { targetPublicKey } : {}) }],
    });
    return oauthProviders;
  }

  get #oauthLinkKey(): string {
    return `${this.sessionManager.sessionKey}:oauth-link`;
  }

  /**
   * Redirect mode: remembers, in this origin's storage, that this user asked to link this provider, then
   * leaves. Only a page that comes back with an ID token for that intent links it (see `#doInit`), so a
   * crafted link carrying someone else's ID token links nothing.
   */
  async #addOauthProviderByRedirect(
    params: Extract<AddOauthProviderParams, { mode: "redirect" }>,
  ): Promise<never> {
    const user = await this.requireUser();
    const intent: OauthLinkIntent = {
      authProviderId: params.authProviderId,
      userId: user.userId,
      startedAtMs: this.sessionManager.clock.now(),
    };
    const storage = this.sessionManager.storage;
    storage.setItem(this.#oauthLinkKey, JSON.stringify(intent));
    const { mode: _mode, ...rest } = params;
    try {
      return (await this.#oauthRoundTrip(
        { ...rest, mode: "redirect", fetchIdTokenOnly: true },
        undefined,
        new AbortController().signal,
      )) as never;
    } catch (error) {
      storage.removeItem(this.#oauthLinkKey);
      throw error;
    }
  }

  /** The page came back from `addOauthProvider({mode: "redirect"})`: link the provider if this user asked. */
  async #finishOauthLinkRedirect(params: { idToken?: string; authProvider?: string; error?: string }) {
    const storage = this.sessionManager.storage;
    const raw = storage.getItem(this.#oauthLinkKey);
    storage.removeItem(this.#oauthLinkKey);
    let intent: OauthLinkIntent | undefined;
    try {
      intent = raw ? (JSON.parse(raw) as OauthLinkIntent) : undefined;
    } catch {
      intent = undefined;
    }
    const user = this.#state.user;
    if (
      !intent ||
      !user ||
      params.error ||
      !params.idToken ||
      intent.userId !== user.userId ||
      intent.authProviderId !== params.authProvider ||
      this.sessionManager.clock.now() - intent.startedAtMs > OAUTH_LINK_INTENT_TTL_MS
    )
      return;
    try {
      const oauthProviders = await this.#linkProvider(user, intent.authProviderId, params.idToken);
      this.#events.emit("oauthProviderAdded", { providerName: intent.authProviderId, oauthProviders });
    } catch (error) {
      this.#set({ error: errorState(error) });
    }
  }

  /**
   * Finishes an OTP sign-in that needed a second factor: sends the pending payload with the TOTP code
   * and completes with the bundle it answers.
   */
  async validateMultiFactors(params: { multiFactorCode: string; multiFactorId?: string }): Promise<User> {
    await this.init();
    const temporary = this.sessionManager.getTemporarySession();
    if (!temporary?.encryptedPayload || !temporary.mfaFactorId) throw new SignerError("NO_PENDING_MFA");
    if (params.multiFactorId && params.multiFactorId !== temporary.mfaFactorId) {
      throw new SignerError("MFA_FACTOR_MISMATCH");
    }
    try {
      const { payload } = await this.client.authValidateMultiFactors({
        encryptedPayload: temporary.encryptedPayload,
        multiFactors: [{ multiFactorId: temporary.mfaFactorId, multiFactorCode: params.multiFactorCode }],
      });
      return await this.#completeAuthWithBundle({
        bundle: payload.credentialBundle,
        orgId: temporary.orgId,
        authenticatingType: "otp",
      });
    } catch (error) {
      // A wrong code leaves the pending sign-in valid: the user may try the next code.
      const wrongCode = (error as { code?: string }).code === "INVALID_MFA_CODE";
      this.#fail(error, wrongCode ? SignerStatus.AWAITING_MFA_AUTH : SignerStatus.DISCONNECTED);
    }
  }

  /**
   * Injects a credential bundle (from an OTP, a magic link or OAuth), reads the user with it and stores
   * the session.
   */
  async completeAuthWithBundle(params: CompleteAuthWithBundleParams): Promise<User> {
    await this.init();
    return this.#completeAuthWithBundle(params);
  }

  async #completeAuthWithBundle(
    params: CompleteAuthWithBundleParams,
    extra: { isNewUser?: boolean } = {},
  ): Promise<User> {
    const type = params.authenticatingType ?? "email";
    this.#set({
      status:
        type === "passkey"
          ? SignerStatus.AUTHENTICATING_PASSKEY
          : type === "oauth"
            ? SignerStatus.AUTHENTICATING_OAUTH
            : SignerStatus.AUTHENTICATING_EMAIL,
      error: null,
    });
    try {
      await this.keyHolder.injectCredentialBundle(params.bundle);
      const who = await this.client.whoami({ orgId: params.orgId });
      if (!who?.userId || !who.address) throw new SignerError("USER_NOT_FOUND");
      const user: User = {
        address: who.address as Hex,
        userId: who.userId,
        orgId: who.orgId,
        ...(who.email ? { email: who.email } : {}),
        ...(who.solanaAddress ? { solanaAddress: who.solanaAddress } : {}),
        ...((params.idToken ?? who.idToken) ? { idToken: params.idToken ?? who.idToken } : {}),
        ...(params.credentialId ? { credentialId: params.credentialId } : {}),
      };
      // The email code of an account-linking prompt proved the mailbox: link the provider now, with
      // the new session, before the app hears 'connected'.
      const linking = type === "otp" ? this.#state.authLinkingStatus : undefined;
      let linkError: unknown;
      if (linking?.providerName) {
        try {
          await this.client.addOauthProvider({
            orgId: user.orgId,
            userId: user.userId,
            oauthProviders: [{ providerName: linking.providerName, oidcToken: linking.idToken }],
          });
        } catch (error) {
          linkError = error;
        }
      }
      const temporary = this.sessionManager.getTemporarySession();
      const startMs =
        type === "email" && temporary?.issuedAtMs !== undefined
          ? temporary.issuedAtMs
          : this.sessionManager.clock.now();
      this.#currentBundle = params.bundle;
      this.sessionManager.setSession({
        type,
        user,
        bundle: params.bundle,
        expirationDateMs: startMs + this.#expirationSeconds() * 1000,
      });
      this.sessionManager.clearTemporarySession();
      this.#set({
        status: SignerStatus.CONNECTED,
        otpId: undefined,
        mfaStatus: { mfaRequired: false },
        isNewUser: extra.isNewUser ?? temporary?.isNewUser ?? this.#state.isNewUser,
        authLinkingStatus: undefined,
        // Signed in, but the provider is not linked: the app may say so (the next social sign-in asks again).
        ...(linkError ? { error: errorState(linkError) } : {}),
      });
      this.#setUser(user, params.connectedEventName ?? "connected");
      return user;
    } catch (error) {
      this.#fail(error, type === "oauth" ? this.#state.status : SignerStatus.DISCONNECTED);
    }
  }

  /** The signed-in user; throws 'Signer not authenticated' when there is none or the session expired. */
  async requireUser(): Promise<User> {
    await this.init();
    const user = this.#state.user;
    if (!user) throw new SignerError("NOT_AUTHENTICATED");
    // A tab that slept past the expiry has not run its timer yet: check before signing.
    if (!this.sessionManager.getSession()) {
      await this.#disconnectLocally(true);
      throw new SignerError("NOT_AUTHENTICATED");
    }
    return user;
  }

  // ---- auth methods and second factors ----

  /** The user's ways to sign in (email, OAuth providers, passkeys, MFA factors). */
  async listAuthMethods(): Promise<AuthMethods> {
    const user = await this.requireUser();
    return this.client.listAuthMethods({ suborgId: user.orgId });
  }

  /** Unlinks an OAuth provider; 'OAuth providers not found' when the user has no such provider. */
  async removeOauthProvider(providerId: string): Promise<void> {
    const user = this.#state.user;
    if (!user) throw new SignerError("MUST_BE_AUTHENTICATED");
    const { oauthProviders } = await this.listAuthMethods();
    if (!oauthProviders.some((p) => p.providerId === providerId))
      throw new SignerError("OAUTH_PROVIDERS_NOT_FOUND");
    await this.client.removeOauthProvider({
      orgId: user.orgId,
      userId: user.userId,
      providerIds: [providerId],
    });
  }

  async #mfaUser(): Promise<User> {
    await this.init();
    const user = this.#state.user;
    if (!user || this.#state.status !== SignerStatus.CONNECTED) throw new SignerError("NOT_CONNECTED");
    return user;
  }

  /** The user's second factors. */
  async getMfaFactors(): Promise<MultiFactor[]> {
    const user = await this.#mfaUser();
    return (await this.client.authListMultiFactors({ orgId: user.orgId })).multiFactors;
  }

  /** Starts adding a TOTP factor: answers its id and the `otpauth://` URL to show as a QR code. */
  async addMfa(params: { multiFactorType: "totp" } = { multiFactorType: "totp" }) {
    const user = await this.#mfaUser();
    return this.client.authRequestMultiFactor({ orgId: user.orgId, multiFactorType: params.multiFactorType });
  }

  /** Confirms a new factor with a code from the authenticator app. */
  async verifyMfa(params: MultiFactorCode): Promise<MultiFactor[]> {
    const user = await this.#mfaUser();
    return (await this.client.authVerifyMultiFactor({ orgId: user.orgId, ...params })).multiFactors;
  }

  async removeMfa(params: { multiFactorIds: string[] }): Promise<MultiFactor[]> {
    const user = await this.#mfaUser();
    return (await this.client.authDeleteMultiFactors({ orgId: user.orgId, ...params })).multiFactors;
  }

  // ---- passkeys ----

  /** What a passkey ceremony needs: the credentials container, the relying party and an abort signal. */
  #passkeyContext(signal?: AbortSignal): PasskeyCeremony {
    const g = globalThis as {
      navigator?: { credentials?: PasskeyCredentials };
      PublicKeyCredential?: unknown;
      location?: { hostname?: string };
    };
    const credentials =
      this.#options.credentials ??
      (typeof g.PublicKeyCredential === "function" && g.navigator?.credentials
        ? g.navigator.credentials
        : undefined);
    if (!credentials) throw new PasskeyError("WEBAUTHN_UNSUPPORTED");
    const rpId = this.#options.rpId ?? g.location?.hostname;
    if (!rpId) throw new PasskeyError("RP_ID_REQUIRED");
    this.#ceremony?.abort();
    const ceremony = new AbortController();
    this.#ceremony = ceremony;
    if (signal?.aborted) ceremony.abort();
    signal?.addEventListener("abort", () => ceremony.abort(), { once: true });
    return {
      credentials,
      rpId,
      rpName: this.#options.rpName ?? rpId,
      signal: ceremony.signal,
      isCurrent: () => this.#ceremony === ceremony,
      done: () => {
        if (this.#ceremony === ceremony) this.#ceremony = undefined;
      },
    };
  }

  async #getRootOrgId(): Promise<string> {
    this.#rootOrgId ??= (await this.client.signerConfig()).rootOrgId;
    return this.#rootOrgId;
  }

  #passkeyUserName(email?: string): string {
    return (
      email ||
      `Passkey ${new Date(this.sessionManager.clock.now()).toISOString().slice(0, 16).replace("T", " ")}`
    );
  }

  /**
   * Passkey sign-in: a new passkey and account when `createNew` is set or the email is unknown (then a
   * login with it), otherwise a login with a discoverable passkey. The login is one prompt: a
   * passkey-stamped create_read_write_session addressed to the app's root organisation.
   */
  async #authenticateWithPasskey(
    params: Extract<AuthenticateParams, { type: "passkey" }>,
  ): Promise<AuthenticateResult> {
    this.#set({ error: null, status: SignerStatus.AUTHENTICATING_PASSKEY, authLinkingStatus: undefined });
    this.#events.emit("authenticating", { type: "passkey" });
    let ceremony: PasskeyCeremony | undefined;
    try {
      ceremony = this.#passkeyContext(params.signal);
      const active = ceremony;
      const [webauthn, rootOrgId] = await Promise.all([import("../passkey/webauthn"), this.#getRootOrgId()]);
      let createNew = params.createNew ?? false;
      if (!createNew && params.email) createNew = !(await this.client.lookup({ email: params.email })).orgId;
      const targetPublicKey = await this.keyHolder.initTargetKey();
      if (createNew) {
        const registration = await webauthn.createPasskey({
          credentials: ceremony.credentials,
          rpId: ceremony.rpId,
          rpName: ceremony.rpName,
          userName: this.#passkeyUserName(params.email),
          signal: ceremony.signal,
        });
        // Sign-up in one prompt: the service answers the new user's session with the verified attestation.
        const signup = await this.client.signup({
          passkey: registration,
          ...(params.email ? { email: params.email } : {}),
          targetPublicKey,
          expirationSeconds: this.#expirationSeconds(),
        });
        this.#set({ isNewUser: true });
        this.#events.emit("newUserSignup", undefined);
        if (!signup.credentialBundle) throw new SignerError("INJECT_BUNDLE_FAILED");
        const user = await this.#completeAuthWithBundle(
          {
            bundle: signup.credentialBundle,
            orgId: signup.orgId,
            authenticatingType: "passkey",
            connectedEventName: "connectedPasskey",
            credentialId: registration.attestation.credentialId,
          },
          { isNewUser: true },
        );
        ceremony.done();
        return { status: SignerStatus.CONNECTED, user };
      }
      let credentialId = "";
      const session = await this.client.createReadWriteSession(
        { organizationId: rootOrgId, targetPublicKey, expirationSeconds: this.#expirationSeconds() },
        {
          stamper: async (body) => {
            const stamp = await webauthn.stampWithPasskey(body, {
              credentials: active.credentials,
              rpId: active.rpId,
              signal: active.signal,
              allowCredentials: [],
            });
            credentialId = stamp.credentialId;
            return stamp;
          },
        },
      );
      const user = await this.#completeAuthWithBundle(
        {
          bundle: session.credentialBundle,
          orgId: session.organizationId,
          authenticatingType: "passkey",
          connectedEventName: "connectedPasskey",
          credentialId,
        },
        { isNewUser: false },
      );
      ceremony.done();
      return { status: SignerStatus.CONNECTED, user };
    } catch (error) {
      // A prompt replaced by a newer one leaves the state to the newer one.
      const superseded = ceremony ? !ceremony.isCurrent() : false;
      ceremony?.done();
      if (superseded) throw error;
      this.#fail(error);
    }
  }

  /**
   * Adds a passkey to the signed-in user and answers its authenticator id. The prompt excludes the
   * user's existing passkeys (an authenticator that holds one refuses: PASSKEY_ALREADY_REGISTERED); the
   * passkey is named `passkey-<timestamp ms>`.
   */
  async addPasskey(params: { signal?: AbortSignal } = {}): Promise<string> {
    const user = await this.requireUser();
    const ceremony = this.#passkeyContext(params.signal);
    try {
      const [webauthn, { authenticators }] = await Promise.all([
        import("../passkey/webauthn"),
        this.client.getAuthenticators({ orgId: user.orgId, userId: user.userId }),
      ]);
      const registration = await webauthn.createPasskey({
        credentials: ceremony.credentials,
        rpId: ceremony.rpId,
        rpName: ceremony.rpName,
        userName: this.#passkeyUserName(user.email),
        excludeCredentials: authenticators.map((a) => ({
          credentialId: a.credentialId,
          transports: a.transports,
        })),
        signal: ceremony.signal,
      });
      const { authenticatorIds } = await this.client.createAuthenticators({
        orgId: user.orgId,
        userId: user.userId,
        authenticators: [
          { authenticatorName: `passkey-${this.sessionManager.clock.now()}`, ...registration },
        ],
      });
      const [authenticatorId] = authenticatorIds;
      if (!authenticatorId) throw new PasskeyError("PASSKEY_FAILED");
      return authenticatorId;
    } finally {
      ceremony.done();
    }
  }

  /** Removes one of the user's passkeys; the last way to sign in cannot be removed (LAST_AUTH_METHOD). */
  async removePasskey(authenticatorId: string): Promise<void> {
    const user = await this.requireUser();
    await this.client.deleteAuthenticators({
      orgId: user.orgId,
      userId: user.userId,
      authenticatorIds: [authenticatorId],
    });
  }

  /** Whether the user has a passkey, and which (from the auth-method listing). */
  async getPasskeyStatus(): Promise<PasskeyStatus> {
    const { passkeys } = await this.listAuthMethods();
    return { isPasskeyAdded: passkeys.length > 0, passkeys };
  }

  #expirationSeconds(): number {
    return this.#options.expirationSeconds ?? DEFAULT_SESSION_EXPIRATION_SECONDS;
  }
}

/** Creates a {@link Signer}; nothing runs until `init()` or the first call. */
/**
 * The memory key holder for use without a window (Node, SSR), loaded on first use: a browser bundle of the
 * signer then never carries its HPKE and curve code (about 26 KB gzip).
 */
function lazyMemoryKeyHolder(): KeyHolder {
  let inner: Promise<KeyHolder> | undefined;
  const get = () => {
    inner ??= import("../keyHolders/memory").then((m) => m.createMemoryKeyHolder());
    return inner;
  };
  return {
    kind: "memory",
    initTargetKey: async () => (await get()).initTargetKey(),
    getTargetPublicKey: async () => (await get()).getTargetPublicKey(),
    injectCredentialBundle: async (bundle) => (await get()).injectCredentialBundle(bundle),
    stamp: async (body) => (await get()).stamp(body),
    clear: async (options) => (await get()).clear(options),
  };
}

export function createSigner(options: SignerOptions): Signer {
  return new Signer(options);
}
