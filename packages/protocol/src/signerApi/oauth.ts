import { z } from "zod";
import { expirationSecondsSchema, idSchema, p256PublicKeyHexSchema, urlSchema } from "../common";

/** Social sign-in (OpenID Connect): prepare-oauth, the `state` and the pop-up message (DESIGN §5). */
export const prepareOauthRequestSchema = z.object({
  /** hex sha256 of the browser's target public key; the ID token must carry it. */
  nonce: z.string().regex(/^[0-9a-f]{64}$/, "must be the hex SHA-256 of the target public key"),
});
/** What a social sign-in needs from the service: the PKCE challenge, the request key and the providers. */
export interface PrepareOauthResponse {
  codeChallenge: string;
  requestKey: string;
  authProviders: {
    id: string;
    isCustomProvider?: boolean;
    clientId: string;
    authEndpoint: string;
    /** The app's scopes for this provider, space-separated (the client's own defaults otherwise). */
    scope?: string;
    /**
     * Authorization parameters the provider needs beyond the code flow's own, in place of the default
     * `prompt=select_account`: e.g. Apple `response_mode=form_post`, Facebook `auth_type=reauthenticate`,
     * Twitch `claims` and `force_verify`.
     */
    authParams?: Record<string, string>;
  }[];
}

/** The OAuth `state`: base64url JSON built by the client, verified by the service's callback. */
export const oauthStateSchema = z.object({
  authProviderId: idSchema(64),
  requestKey: idSchema(128),
  targetPublicKey: p256PublicKeyHexSchema,
  expirationSeconds: expirationSecondsSchema.optional(),
  mode: z.enum(["popup", "redirect"]),
  /** redirect mode: where to return (on the app's allow-list). */
  redirectUrl: urlSchema(2048).optional(),
  /** popup mode: the opener's exact origin, which the result is posted to. */
  openerOrigin: urlSchema(512).optional(),
  /** Adding a provider while signed in: answer with the ID token only. */
  fetchIdTokenOnly: z.boolean().optional(),
});
export type OauthState = z.input<typeof oauthStateSchema>;

export type OauthStatus = "SUCCESS" | "ACCOUNT_LINKING_CONFIRMATION_REQUIRED" | "FETCHED_ID_TOKEN_ONLY";

/** What the pop-up posts to its opener (and, as query parameters, what a redirect carries). */
export interface OauthPopupMessage {
  status: OauthStatus | "ERROR";
  bundle?: string;
  orgId?: string;
  idToken?: string;
  isSignup?: boolean;
  error?: string;
  otpId?: string;
  email?: string;
  authProvider?: string;
}
