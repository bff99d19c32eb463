import { apple } from "./apple";
import { auth0, customOidc } from "./auth0";
import { discord } from "./discord";
import { facebook } from "./facebook";
import { github } from "./github";
import { google } from "./google";
import { twitch } from "./twitch";
import type { ProviderDescription } from "./types";

/** The named providers, by id. A new provider is one file beside these and one entry here. */
export const PROVIDERS: Record<string, ProviderDescription> = {
  google,
  facebook,
  apple,
  twitch,
  auth0,
  github,
  discord,
};

/** The description a configured provider runs by: its named one, or plain OIDC for a custom id. */
export function describeProvider(p: { id: string; isCustomProvider: boolean; displayName: string }) {
  const known = p.isCustomProvider ? undefined : PROVIDERS[p.id];
  return known ?? customOidc(p.id, p.displayName);
}

export type { OauthEndpoints, ProviderDescription, ProviderUser } from "./types";
