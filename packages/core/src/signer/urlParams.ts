/** Query parameters the signer reads on load (spec §9); all of them are stripped afterwards. */
export const AUTH_URL_PARAMS = [
  "bundle",
  "orgId",
  "status",
  "idToken",
  "otpId",
  "email",
  "authProvider",
  "error",
  "isSignup",
] as const;

/** The sign-in parameters a magic link or a redirect brings back in the page's URL. */
export interface AuthUrlParams {
  bundle?: string;
  orgId?: string;
  status?: string;
  idToken?: string;
  otpId?: string;
  email?: string;
  authProvider?: string;
  error?: string;
  isSignup?: boolean;
}

/** The part of `window` the URL handling uses. */
export interface UrlWindow {
  location: { href: string };
  history: { state: unknown; replaceState(data: unknown, unused: string, url?: string | URL | null): void };
}

/**
 * Reads the auth parameters of `href`; returns them and the URL without them.
 *
 * @example
 * const params = readAuthUrlParams(new URL(location.href)); // { bundle, orgId, … } or null
 */
export function readAuthUrlParams(href: string): { params: AuthUrlParams; strippedUrl: string | null } {
  const url = new URL(href);
  const params: AuthUrlParams = {};
  let found = false;
  for (const name of AUTH_URL_PARAMS) {
    const value = url.searchParams.get(name);
    if (value === null) continue;
    found = true;
    url.searchParams.delete(name);
    if (name === "isSignup") params.isSignup = value === "true";
    else params[name] = value;
  }
  return { params, strippedUrl: found ? url.toString() : null };
}
