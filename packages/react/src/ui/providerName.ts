import type { OauthConfig } from "../types";

const PROVIDER_NAMES: Record<string, string> = {
  google: "Google",
  facebook: "Facebook",
  apple: "Apple",
  twitch: "Twitch",
  auth0: "Auth0",
  github: "GitHub",
  discord: "Discord",
};

/** The provider's name in the modal's texts: `displayName`, else the known provider's name, else its id. */
export function providerName(config: OauthConfig): string {
  return config.displayName ?? PROVIDER_NAMES[config.authProviderId] ?? config.authProviderId;
}
