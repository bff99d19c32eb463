import type { FastifyBaseLogger } from "fastify";

/** How often the same refused key prefix or origin is logged again: once a minute. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** At most this many refusal lines a window in all (random keys must not flood the log). */
const MAX_LINES_PER_WINDOW = 50;

/** What a developer greps for: the first characters of a key (never the whole key). */
export const keyPrefix = (key: string): string => `${key.slice(0, Math.min(8, Math.floor(key.length / 3)))}…`;

/**
 * Logs the requests the service refuses before any route runs — an unknown API key, an origin no app (or
 * not this app) allows — at `warn`, so a developer whose modal says 'Sign-in is unavailable' finds the
 * cause in the service's log too. Each key prefix or origin once per window; at most 50 lines a window.
 */
export class RefusalLog {
  private readonly seen = new Map<string, number>();
  private windowStart = 0;
  private lines = 0;
  private suppressed = 0;

  constructor(
    private readonly log: () => FastifyBaseLogger,
    private readonly now: () => number,
    private readonly windowMs = REFUSAL_LOG_WINDOW_MS,
  ) {}

  /** An API key no app has (unknown or revoked): only its prefix is logged. */
  unknownKey(key: string, origin: string | undefined): void {
    const prefix = keyPrefix(key);
    this.write(
      `key:${prefix}`,
      { keyPrefix: prefix, origin },
      `Refused an unknown or revoked API key (${prefix})`,
    );
  }

  /** An origin the app (or, with no app named, every app) does not allow. */
  originNotAllowed(origin: string, appId?: string): void {
    this.write(
      `origin:${appId ?? ""}:${origin}`,
      { origin, ...(appId ? { appId } : {}) },
      appId
        ? `Refused origin ${origin}: app ${appId} does not allow it (add it to the app's allowed origins)`
        : `Refused origin ${origin}: no app allows it (add it to an app's allowed origins)`,
    );
  }

  private write(id: string, fields: Record<string, unknown>, message: string): void {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0)
        this.log().warn(
          { suppressed: this.suppressed },
          `${this.suppressed} more refused requests were not logged`,
        );
      this.windowStart = t;
      this.lines = 0;
      this.suppressed = 0;
      for (const [k, at] of this.seen) if (t - at >= this.windowMs) this.seen.delete(k);
    }
    const last = this.seen.get(id);
    if (last !== undefined && t - last < this.windowMs) return;
    if (this.lines >= MAX_LINES_PER_WINDOW) {
      this.suppressed++;
      return;
    }
    this.seen.set(id, t);
    this.lines++;
    this.log().warn({ refused: fields }, message);
  }
}
