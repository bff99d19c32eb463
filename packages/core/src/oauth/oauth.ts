import {
  POPUP_CLOSED_CHECK_MS,
  POPUP_HEIGHT,
  POPUP_WIDTH,
  REDIRECT_FAILURE_MS,
} from "@latchkey/protocol/constants";
import type { OauthPopupMessage, PrepareOauthResponse } from "@latchkey/protocol/schemas";
import { LatchkeyError } from "../errors";

/** Social sign-in errors with the spec's texts (§8). */
export const OauthErrorMessages = {
  OAUTH_CANCELLED: "OAuth cancelled",
  OAUTH_REDIRECT_FAILED: "Failed to redirect to OAuth provider",
  OAUTH_POPUP_NOT_PREPARED:
    "Pop-up OAuth needs enablePopupOauth, or preparePopupOauth() called in the click handler",
  OAUTH_POPUP_BLOCKED: "The OAuth pop-up was blocked by the browser",
  OAUTH_PROVIDER_NOT_FOUND: "OAuth providers not found",
  OAUTH_UNKNOWN_SCOPE: "No known scope for this OAuth provider; pass one",
  OAUTH_UNSUPPORTED: "Social sign-in needs a browser window",
} as const;
export type OauthErrorCode = keyof typeof OauthErrorMessages;

/**
 * A social sign-in that did not complete. `code` says why; OAUTH_FAILED carries the service's or the
 * provider's message (the pop-up's or the redirect's `error`).
 */
export class OauthError extends LatchkeyError {
  override name: string = "OauthError";
  declare readonly code: OauthErrorCode | "OAUTH_FAILED";
  constructor(code: OauthErrorCode | "OAUTH_FAILED", message?: string, options?: { cause?: unknown }) {
    super(code, message ?? OauthErrorMessages[code as OauthErrorCode] ?? "OAuth sign-in failed", options);
  }
}

/**
 * The user closed the sign-in pop-up (or the app aborted the sign-in): 'OAuth cancelled'. Its `name`
 * ("OauthCancelledError") survives in the signer's state error, so a UI can go back to its initial step
 * instead of showing a failure.
 */
export class OauthCancelledError extends OauthError {
  override name = "OauthCancelledError";
  declare readonly code: "OAUTH_CANCELLED";
  constructor(options?: { cause?: unknown }) {
    super("OAUTH_CANCELLED", undefined, options);
  }
}

/** Whether `error` (or a signer state error `{name}`) is a cancelled social sign-in. */
export function isOauthCancelled(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "OauthCancelledError"
  );
}

export type OauthMode = "popup" | "redirect";

/** What `authenticate({type: "oauth", ...})` takes (spec §3, OAuth config). */
export interface OauthParams {
  authProviderId: "google" | "facebook" | "apple" | "twitch" | "auth0" | (string & {});
  mode: OauthMode;
  displayName?: string;
  auth0Connection?: string;
  logoUrl?: string;
  logoUrlDark?: string;
  /** Overrides the provider's default scope. */
  scope?: string;
  /** Redirect mode: where the provider flow returns (an allow-listed URL); defaults to this page. */
  redirectUrl?: string;
  expirationSeconds?: number;
  /** Adding a provider while signed in: only an ID token comes back. */
  fetchIdTokenOnly?: boolean;
}

/** Default scopes by provider (spec §7: per-provider defaults). */
export const DEFAULT_OAUTH_SCOPES: Record<string, string> = {
  google: "openid email profile",
  apple: "openid email name",
  facebook: "openid email",
  twitch: "openid user:read:email",
  auth0: "openid email profile",
};

export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function base64UrlJson(value: object): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The provider's authorization URL: PKCE (S256) from the service, `state` naming the prepared request
 * and this browser's target key, the nonce (sha256 of the target key), and `prompt=select_account`.
 */
export function buildOauthUrl(args: {
  prepared: PrepareOauthResponse;
  params: OauthParams;
  targetPublicKey: string;
  nonce: string;
  callbackUrl: string;
  /** Pop-up mode: the opener's origin, which the result is posted to. */
  openerOrigin?: string;
  /** Redirect mode: where to return. */
  redirectUrl?: string;
}): string {
  const { prepared, params } = args;
  const provider = prepared.authProviders.find((p) => p.id === params.authProviderId);
  if (!provider) throw new OauthError("OAUTH_PROVIDER_NOT_FOUND");
  const scope =
    params.scope ??
    DEFAULT_OAUTH_SCOPES[params.authProviderId] ??
    (provider.isCustomProvider ? "openid email profile" : undefined);
  if (!scope) throw new OauthError("OAUTH_UNKNOWN_SCOPE");
  const state = base64UrlJson({
    authProviderId: params.authProviderId,
    requestKey: prepared.requestKey,
    targetPublicKey: args.targetPublicKey,
    mode: params.mode,
    ...(params.expirationSeconds ? { expirationSeconds: params.expirationSeconds } : {}),
    ...(params.mode === "popup" ? { openerOrigin: args.openerOrigin } : { redirectUrl: args.redirectUrl }),
    ...(params.fetchIdTokenOnly ? { fetchIdTokenOnly: true } : {}),
  });
  const url = new URL(provider.authEndpoint);
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", args.callbackUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", scope);
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", args.nonce);
  url.searchParams.set("code_challenge", prepared.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("prompt", "select_account");
  if (params.auth0Connection) url.searchParams.set("connection", params.auth0Connection);
  return url.toString();
}

/** Opens the sign-in pop-up, 500×600 and centred; it must be called inside the user's click. */
export function openOauthPopup(
  win: Pick<Window, "open" | "screenX" | "screenY" | "outerWidth" | "outerHeight">,
): Window {
  const left = Math.max(0, Math.round(win.screenX + (win.outerWidth - POPUP_WIDTH) / 2));
  const top = Math.max(0, Math.round(win.screenY + (win.outerHeight - POPUP_HEIGHT) / 2));
  const popup = win.open(
    "about:blank",
    "latchkey-oauth",
    `popup=yes,width=${POPUP_WIDTH},height=${POPUP_HEIGHT},left=${left},top=${top}`,
  );
  if (!popup) throw new OauthError("OAUTH_POPUP_BLOCKED");
  return popup;
}

const STATUSES = new Set([
  "SUCCESS",
  "ACCOUNT_LINKING_CONFIRMATION_REQUIRED",
  "FETCHED_ID_TOKEN_ONLY",
  "ERROR",
]);

function isPopupMessage(data: unknown): data is OauthPopupMessage {
  return (
    typeof data === "object" && data !== null && STATUSES.has((data as { status?: unknown }).status as string)
  );
}

/**
 * Waits for the pop-up's answer: only a message from the service's exact origin and from this pop-up
 * counts. The pop-up is checked every 500 ms; once closed without an answer, the sign-in is cancelled.
 */
export function waitForPopupMessage(args: {
  win: Pick<Window, "addEventListener" | "removeEventListener">;
  popup: Pick<Window, "closed">;
  serviceOrigin: string;
  closedCheckMs?: number;
  /** Aborting (e.g. the modal's Back) cancels the wait: OauthCancelledError. */
  signal?: AbortSignal;
}): Promise<OauthPopupMessage> {
  const { win, popup, serviceOrigin, signal } = args;
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settle();
      reject(new OauthCancelledError({ cause: signal?.reason }));
    };
    const settle = () => {
      settled = true;
      win.removeEventListener("message", onMessage);
      signal?.removeEventListener("abort", onAbort);
      clearInterval(timer);
    };
    const onMessage = (e: MessageEvent) => {
      if (settled || e.origin !== serviceOrigin || e.source !== popup || !isPopupMessage(e.data)) return;
      settle();
      resolve(e.data);
    };
    win.addEventListener("message", onMessage);
    const timer = setInterval(() => {
      if (settled || !popup.closed) return;
      clearInterval(timer);
      // The pop-up closes itself right after posting: give a queued message one more turn.
      setTimeout(() => {
        if (settled) return;
        settle();
        reject(new OauthCancelledError());
      }, 50);
    }, args.closedCheckMs ?? POPUP_CLOSED_CHECK_MS);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort);
  });
}

/** Leaves for the provider; if the page is still here after 1000 ms, the redirect failed. */
export function redirectToOauth(
  win: Pick<Window, "location">,
  url: string,
  failureMs = REDIRECT_FAILURE_MS,
): Promise<never> {
  win.location.assign(url);
  return new Promise((_, reject) => {
    setTimeout(() => reject(new OauthError("OAUTH_REDIRECT_FAILED")), failureMs);
  });
}
