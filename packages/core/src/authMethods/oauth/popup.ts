import type { OauthPopupMessage } from "@latchkey/protocol";
import {
  POPUP_CLOSED_CHECK_MS,
  POPUP_HEIGHT,
  POPUP_WIDTH,
  REDIRECT_FAILURE_MS,
} from "@latchkey/protocol/constants";
import { OauthCancelledError, OauthError } from "../../errors";

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
