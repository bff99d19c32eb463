/**
 * Allowed origins. An entry is an exact origin (`https://app.example.com`), or, for local development, a
 * loopback host on any port: `http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*` (the dev app's
 * default, so an app on any local port works beside `latchkey serve --dev`). No other wildcard exists:
 * a public host is always named exactly.
 */
const LOOPBACK_ANY_PORT = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\]):\*$/;

/** `http://localhost:*` and its 127.0.0.1 / [::1] twins. */
export function isLoopbackAnyPort(entry: string): boolean {
  return LOOPBACK_ANY_PORT.test(entry);
}

/**
 * Whether `origin` (as a browser sends it) is allowed by one entry.
 *
 * @example
 * originMatches("http://localhost:*", "http://localhost:3000"); // true
 * originMatches("https://app.example.com", "https://app.example.com"); // true
 */
export function originMatches(entry: string, origin: string): boolean {
  if (entry === origin) return true;
  const host = LOOPBACK_ANY_PORT.exec(entry)?.[1];
  if (!host) return false;
  const parsed = /^http:\/\/([^/:]+|\[[^\]]+\])(?::(\d{1,5}))?$/.exec(origin);
  return parsed?.[1] === host;
}

/**
 * Whether any entry allows `origin`.
 *
 * @example
 * isOriginAllowed(["http://localhost:*"], "http://localhost:5173"); // true
 */
export function isOriginAllowed(entries: Iterable<string>, origin: string): boolean {
  for (const entry of entries) if (originMatches(entry, origin)) return true;
  return false;
}

/**
 * Whether `url` is allowed by an allow-list entry of URLs (magic-link and OAuth return targets): the same
 * origin (an entry's origin may be a loopback any-port pattern followed by a path) and path.
 *
 * @example
 * urlAllowedBy("http://localhost:*\/", new URL("http://localhost:3000/")); // true
 */
export function urlAllowedBy(entry: string, url: URL): boolean {
  const pattern = /^(http:\/\/(?:localhost|127\.0\.0\.1|\[::1\]):\*)(\/.*)?$/.exec(entry);
  if (pattern) return originMatches(pattern[1] as string, url.origin) && (pattern[2] ?? "/") === url.pathname;
  const allowed = new URL(entry);
  return allowed.origin === url.origin && allowed.pathname === url.pathname;
}
