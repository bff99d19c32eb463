import { isLoopbackAnyPort, isOriginAllowed, originMatches } from "@latchkey/protocol";

/** The origin `scheme://authority` names, or undefined when it is not an http(s) origin. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an allow-list entry (an exact origin, or `http://localhost:*` and its twins) has this host. */
function entryHasHost(entry: string, domain: string): boolean {
  if (isLoopbackAnyPort(entry)) return originMatches(entry, `http://${domain}`);
  const allowed = originOf(entry);
  if (!allowed) return false;
  const protocol = new URL(allowed).protocol;
  // The entry's scheme decides the default port: app.example.com is app.example.com:443 for https.
  return originOf(`${protocol}//${domain}`) === allowed;
}

/**
 * Whether a SIWE message's `domain` (with its optional `scheme`) is one of the app's allowed origins, as
 * a browser on that origin would write it (EIP-4361: the RFC 3986 authority asking for the signature).
 * Without a scheme the message names a host (and port), which any allowed origin on it matches.
 *
 * @example
 * domainAllowed(["https://app.example.com"], { domain: "app.example.com" }); // true
 * domainAllowed(["http://localhost:*"], { domain: "localhost:5173", scheme: "http" }); // true
 */
export function domainAllowed(
  allowedOrigins: readonly string[],
  message: { domain: string; scheme?: string },
) {
  const domain = message.domain.toLowerCase();
  if (message.scheme !== undefined) {
    const origin = originOf(`${message.scheme.toLowerCase()}://${domain}`);
    return origin !== undefined && isOriginAllowed(allowedOrigins, origin);
  }
  return allowedOrigins.some((entry) => entryHasHost(entry, domain));
}

/**
 * Whether a SIWE message's `URI` is on one of the app's allowed origins (same origin; any path).
 *
 * @example
 * uriAllowed(["https://app.example.com"], "https://app.example.com/login"); // true
 */
export function uriAllowed(allowedOrigins: readonly string[], uri: string): boolean {
  const origin = originOf(uri);
  return origin !== undefined && isOriginAllowed(allowedOrigins, origin);
}
