import { ErrorCode, urlAllowedBy } from "@latchkey/protocol";
import type { App } from "../../apps/appDirectory";
import { apiError } from "../../errors";

export type EmailModeChoice = "magicLink" | "otp";

/** The email mode of a request: the one asked for, else the app's. */
export function resolveMode(app: App, requested: EmailModeChoice | undefined): EmailModeChoice {
  return requested ?? (app.emailMode === "MAGIC_LINK" ? "magicLink" : "otp");
}

/** The magic link's target: a URL on the app's allow-list (same origin and path), else its first entry. */
export function magicLinkTarget(app: App, requested: string | undefined): URL {
  if (app.magicLinkRedirectUrls.length === 0) {
    throw apiError(ErrorCode.INVALID_REDIRECT_URL, "This app has no magic-link redirect URL configured");
  }
  if (!requested) {
    // A loopback any-port entry (the dev app's) names no one page: the client must say where to return.
    const concrete = app.magicLinkRedirectUrls.find((entry) => !/^http:\/\/[^/]+:\*(\/|$)/.test(entry));
    if (!concrete) {
      throw apiError(
        ErrorCode.INVALID_REDIRECT_URL,
        "redirectUrl is required: this app allows any local port",
      );
    }
    return new URL(concrete);
  }
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    throw apiError(ErrorCode.INVALID_REDIRECT_URL, "redirectUrl is not a valid URL");
  }
  const ok = app.magicLinkRedirectUrls.some((allowed) => urlAllowedBy(allowed, url));
  if (!ok) throw apiError(ErrorCode.INVALID_REDIRECT_URL, "redirectUrl is not on this app's allow-list");
  return url;
}
