import { isLoopbackAnyPort, isOriginAllowed } from "@latchkey/protocol";

/**
 * The origins a WebAuthn ceremony may come from, as the verifier wants them (exact strings). A loopback
 * any-port entry (the dev app's `http://localhost:*`) admits the origin the browser wrote into
 * clientDataJSON when it matches; every other entry is exact.
 *
 * @example
 * expectedOrigins(["http://localhost:*"], clientDataJsonB64url); // ["http://localhost:3000"]
 */
export function expectedOrigins(origins: readonly string[], clientDataJsonB64url: string): string[] {
  const exact = origins.filter((origin) => !isLoopbackAnyPort(origin));
  if (exact.length === origins.length) return exact;
  let origin: unknown;
  try {
    origin = (
      JSON.parse(Buffer.from(clientDataJsonB64url, "base64url").toString("utf8")) as { origin?: unknown }
    ).origin;
  } catch {
    return exact;
  }
  return typeof origin === "string" && isOriginAllowed(origins, origin) ? [...exact, origin] : exact;
}
