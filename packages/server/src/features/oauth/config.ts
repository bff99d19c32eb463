import { z } from "zod";
import { PROVIDERS } from "../../oauthProviders/providers";

/** Issuers and default scopes of the named providers (oauthProviders/providers); `issuer` points any elsewhere. */
export const KNOWN_OAUTH_PROVIDERS: Record<string, { issuer?: string; scopes: string[]; name: string }> =
  Object.fromEntries(
    Object.values(PROVIDERS).map((d) => [
      d.id,
      { ...(d.issuer ? { issuer: d.issuer } : {}), scopes: d.defaultScopes, name: d.name },
    ]),
  );

export const oauthProviderConfigSchema = z
  .object({
    /** google, facebook, apple, twitch, auth0, or a custom id with `isCustomProvider`. */
    id: z.string().regex(/^[a-z0-9_-]{1,64}$/),
    issuer: z.string().url().optional(),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
    isCustomProvider: z.boolean().optional(),
    auth0Connection: z.string().optional(),
    displayName: z.string().optional(),
    /** Allow an http:// issuer (local dev providers only). */
    allowInsecureHttp: z.boolean().optional(),
    /** OAuth 2.0 providers (facebook, github, discord): endpoints other than the real ones (local stand-ins). */
    endpoints: z
      .object({ authorization: z.string().url(), token: z.string().url(), userInfo: z.string().url() })
      .partial()
      .optional(),
    /** Sign in with Apple: the team, the key id and the `.p8` private key (PEM) the client secret is signed with. */
    apple: z
      .object({
        teamId: z.string().regex(/^[A-Za-z0-9]{1,32}$/),
        keyId: z.string().regex(/^[A-Za-z0-9]{1,32}$/),
        privateKey: z.string().includes("PRIVATE KEY", { message: "must be the .p8 key in PEM form" }),
      })
      .optional(),
  })
  .refine((p) => p.issuer || (KNOWN_OAUTH_PROVIDERS[p.id]?.issuer && !p.isCustomProvider), {
    message: "issuer is required for this provider",
  })
  .refine((p) => p.isCustomProvider || p.id !== "apple" || p.apple || p.clientSecret, {
    message: "apple needs `apple` (teamId, keyId, privateKey) to sign its client secret",
  })
  .refine((p) => p.isCustomProvider || PROVIDERS[p.id]?.protocol !== "oauth2" || p.clientSecret, {
    message: "clientSecret is required for this provider",
  });
export type OauthProviderConfig = z.infer<typeof oauthProviderConfigSchema>;
