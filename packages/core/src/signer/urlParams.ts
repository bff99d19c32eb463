/**
 * The signup marker (spec §4, §9): a magic link that signs up a new account comes back with it, so the
 * page knows the user is new (the passkey offer after sign-up). Unlike the other parameters it stays in
 * the address bar after load; the modal removes it when it resets.
 */
export const SIGNUP_URL_PARAM = "lk-signup";

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
  /** The signup marker was in the URL (a magic link that made a new account). */
  signupMarker?: boolean;
}

/** The part of `window` the URL handling uses. */
export interface UrlWindow {
  location: { href: string };
  history: { state: unknown; replaceState(data: unknown, unused: string, url?: string | URL | null): void };
}

/**
 * Reads the auth parameters of `href`; returns them and the URL without them (but with those named in
 * `keep`; `strippedUrl` is null when nothing was removed).
 *
 * @example
 * const { params, strippedUrl } = readAuthUrlParams(location.href); // params: { bundle, orgId, … }
 */
export function readAuthUrlParams(
  href: string,
  { keep = [] }: { keep?: readonly string[] } = {},
): { params: AuthUrlParams; strippedUrl: string | null } {
  const url = new URL(href);
  const params: AuthUrlParams = {};
  let found = false;
  for (const name of AUTH_URL_PARAMS) {
    const value = url.searchParams.get(name);
    if (value === null) continue;
    if (!keep.includes(name)) {
      found = true;
      url.searchParams.delete(name);
    }
    if (name === "isSignup") params.isSignup = value === "true";
    else params[name] = value;
  }
  if (url.searchParams.get(SIGNUP_URL_PARAM) === "true") {
    params.signupMarker = true;
    if (!keep.includes(SIGNUP_URL_PARAM)) {
      found = true;
      url.searchParams.delete(SIGNUP_URL_PARAM);
    }
  }
  return { params, strippedUrl: found ? url.toString() : null };
}
