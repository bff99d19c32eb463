import { MAX_TIMER_DELAY_MS, TEMPORARY_SESSION_SUFFIX } from "@latchkey/protocol/wire";
import { type Clock, systemClock } from "./clock";
import { defaultStorage, type SessionStorageLike } from "./storage";
import type { Session, TemporarySession } from "./types";

/** The storage key a session is kept under (and `<key>:temporary` for a sign-in in progress). */
export const DEFAULT_SESSION_KEY = "latchkey-signer-session";

/** The window events the manager listens to; `window` in a browser. */
export interface SessionEventTarget {
  addEventListener(type: "focus" | "storage", listener: (event: Event) => void): void;
  removeEventListener(type: "focus" | "storage", listener: (event: Event) => void): void;
}

/** Where sessions are stored, under which key, and the clock that expires them. */
export interface SessionManagerOptions {
  storage?: SessionStorageLike;
  /** Storage key of the session; the temporary session lives under `<key>:temporary`. */
  sessionKey?: string;
  clock?: Clock;
  /** Where focus and storage events come from; `window` by default, `null` for none. */
  eventTarget?: SessionEventTarget | null;
}

/** What changed in the stored session: set (here or in another tab), cleared, or expired. */
export type SessionChange =
  | { reason: "expired"; session: null }
  | { reason: "changed"; session: Session | null };

function parse<T>(raw: string | null): T | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

/**
 * Keeps the session in storage (spec §4): expiry at `expirationDateMs` clears it, and on window focus
 * and `storage` events the stored session is re-read, so every tab of the app agrees on who is signed in.
 *
 * @example
 * const sessions = new SessionManager({ sessionKey: "my-app-session" });
 * const stop = sessions.watch((change) => console.log(change.reason, change.session));
 */
export class SessionManager {
  readonly sessionKey: string;
  readonly temporarySessionKey: string;
  readonly clock: Clock;
  readonly #options: SessionManagerOptions;
  #storage: SessionStorageLike | undefined;
  #lastRaw: string | null = null;
  #timer: unknown;
  #listener: ((change: SessionChange) => void) | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(options: SessionManagerOptions = {}) {
    this.#options = options;
    this.sessionKey = options.sessionKey ?? DEFAULT_SESSION_KEY;
    this.temporarySessionKey = `${this.sessionKey}${TEMPORARY_SESSION_SUFFIX}`;
    this.clock = options.clock ?? systemClock;
  }

  get storage(): SessionStorageLike {
    this.#storage ??= this.#options.storage ?? defaultStorage();
    return this.#storage;
  }

  /** The stored session, or null when there is none or it has expired (an expired one is removed). */
  getSession(): Session | null {
    const raw = this.storage.getItem(this.sessionKey);
    const session = parse<Session>(raw);
    if (!session) return null;
    if (this.isExpired(session)) {
      this.storage.removeItem(this.sessionKey);
      return null;
    }
    return session;
  }

  isExpired(session: Session): boolean {
    return !(session.expirationDateMs > this.clock.now());
  }

  setSession(session: Session): void {
    const raw = JSON.stringify(session);
    this.storage.setItem(this.sessionKey, raw);
    this.#lastRaw = raw;
    this.#schedule(session);
  }

  /** Removes the session and the temporary session. */
  clearSession(): void {
    this.storage.removeItem(this.sessionKey);
    this.storage.removeItem(this.temporarySessionKey);
    this.#lastRaw = null;
    this.#schedule(null);
  }

  getTemporarySession(): TemporarySession | null {
    return parse<TemporarySession>(this.storage.getItem(this.temporarySessionKey));
  }

  setTemporarySession(session: TemporarySession): void {
    this.storage.setItem(this.temporarySessionKey, JSON.stringify(session));
  }

  clearTemporarySession(): void {
    this.storage.removeItem(this.temporarySessionKey);
  }

  /**
   * Starts the expiry timer and the focus/storage listeners; `listener` hears of an expiry and of a
   * session that another tab (or anything else) changed. Returns a function that stops watching.
   */
  watch(listener: (change: SessionChange) => void): () => void {
    this.stop();
    this.#listener = listener;
    const current = this.getSession();
    this.#lastRaw = current ? JSON.stringify(current) : null;
    this.#schedule(current);
    const target =
      this.#options.eventTarget === undefined
        ? (globalThis as { window?: SessionEventTarget }).window
        : this.#options.eventTarget;
    if (target) {
      const onFocus = () => this.recheck();
      const onStorage = (event: Event) => {
        const key = (event as StorageEvent).key;
        if (key === null || key === this.sessionKey) this.recheck();
      };
      target.addEventListener("focus", onFocus);
      target.addEventListener("storage", onStorage);
      this.#unsubscribe = () => {
        target.removeEventListener("focus", onFocus);
        target.removeEventListener("storage", onStorage);
      };
    }
    return () => this.stop();
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#listener = undefined;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Re-reads storage: reports an expiry or a change since this manager last saw the session. */
  recheck(): void {
    const raw = this.storage.getItem(this.sessionKey);
    const session = parse<Session>(raw);
    if (session && this.isExpired(session)) {
      this.#expire();
      return;
    }
    const normalised = session ? raw : null;
    if (normalised === this.#lastRaw) return;
    this.#lastRaw = normalised;
    this.#schedule(session);
    this.#listener?.({ reason: "changed", session });
  }

  #expire(): void {
    this.clearSession();
    this.#listener?.({ reason: "expired", session: null });
  }

  // setTimeout fires at once for delays above 2^31-1 ms, so long sessions wait in capped steps.
  #schedule(session: Session | null): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!session || !this.#listener) return;
    const delay = session.expirationDateMs - this.clock.now();
    this.#timer = this.clock.setTimeout(
      () => {
        this.#timer = undefined;
        const stored = parse<Session>(this.storage.getItem(this.sessionKey));
        if (!stored || stored.expirationDateMs !== session.expirationDateMs) return this.recheck();
        if (this.isExpired(stored)) this.#expire();
        else this.#schedule(stored);
      },
      Math.min(Math.max(delay, 0), MAX_TIMER_DELAY_MS),
    );
  }
}
