// Types only: what the signer's options and `authenticate({ type: "oauth" })` say about social sign-in.

/** How a social sign-in reaches the provider: a pop-up, or a redirect of the whole page. */
export type OauthMode = "popup" | "redirect";

/** What `authenticate({type: "oauth", ...})` takes (spec §3, OAuth config). */
export interface OauthParams {
  authProviderId: "google" | "facebook" | "apple" | "twitch" | "auth0" | "github" | "discord" | (string & {});
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
