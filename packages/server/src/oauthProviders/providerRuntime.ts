import { ErrorCode } from "@latchkey/protocol";
import { createRemoteJWKSet } from "jose";
import * as oidc from "openid-client";
import type { App, StoredOauthProvider } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";
import { appleClientSecret } from "./appleClientSecret";
import { describeProvider, type OauthEndpoints, type ProviderDescription } from "./providers";

/** What the flow needs of a provider at run time: its description and where its endpoints are. */
export interface ProviderRuntime {
  description: ProviderDescription;
  authorizationEndpoint: string;
  /** OIDC: the discovered metadata and the JWKS its ID tokens are checked against. */
  oidc?: { server: oidc.ServerMetadata; jwks: ReturnType<typeof createRemoteJWKSet> };
  /** OAuth 2.0: the endpoints (the provider's real ones unless the config points elsewhere). */
  endpoints?: OauthEndpoints;
  at: number;
}

const RUNTIME_TTL_MS = 10 * 60 * 1000;

/**
 * A provider's runtime, cached in the service for ten minutes: OIDC providers by discovery (and their
 * JWKS), OAuth 2.0 providers by their description's endpoints and the config's overrides.
 */
export async function providerRuntime(
  ctx: Pick<ServiceContext, "keyring" | "now" | "caches">,
  params: { app: App; provider: StoredOauthProvider },
): Promise<ProviderRuntime> {
  const { app, provider: p } = params;
  const runtimes = ctx.caches.providerRuntimes as Map<string, ProviderRuntime>;
  const key = `${app.id}/${p.id}/${p.issuer}/${p.clientId}/${JSON.stringify(p.endpoints ?? {})}`;
  const cached = runtimes.get(key);
  if (cached && ctx.now() - cached.at < RUNTIME_TTL_MS) return cached;
  const description = describeProvider(p);
  let runtime: ProviderRuntime;
  if (description.protocol === "oauth2") {
    const endpoints = { ...description.endpoints, ...p.endpoints };
    if (!endpoints.authorization || !endpoints.token || !endpoints.userInfo)
      throw apiError(ErrorCode.OAUTH_EXCHANGE_FAILED, `${p.displayName} has no endpoints configured`);
    runtime = {
      description,
      authorizationEndpoint: endpoints.authorization,
      endpoints: endpoints as OauthEndpoints,
      at: ctx.now(),
    };
  } else {
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(
        new URL(p.issuer),
        p.clientId,
        undefined,
        oidc.None(),
        p.allowInsecureHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
      );
    } catch {
      throw apiError(ErrorCode.OAUTH_EXCHANGE_FAILED, `Could not reach ${p.displayName}`);
    }
    const server = config.serverMetadata();
    if (!server.jwks_uri)
      throw apiError(ErrorCode.OAUTH_EXCHANGE_FAILED, `${p.displayName} publishes no JWKS`);
    runtime = {
      description,
      authorizationEndpoint: server.authorization_endpoint ?? "",
      oidc: { server, jwks: createRemoteJWKSet(new URL(server.jwks_uri)) },
      at: ctx.now(),
    };
  }
  runtimes.set(key, runtime);
  return runtime;
}

/** The client secret a token request carries: the configured one, or Apple's freshly minted JWT. */
export async function clientSecretOf(
  ctx: Pick<ServiceContext, "keyring" | "now" | "caches">,
  params: { app: App; provider: StoredOauthProvider; description: ProviderDescription },
): Promise<string | undefined> {
  const { app, provider: p } = params;
  if (params.description.tokenAuth === "apple_jwt" && p.apple) return appleClientSecret(ctx, params);
  return p.sealedClientSecret
    ? (await ctx.keyring.open(p.sealedClientSecret, `oauth_client:${app.id}:${p.id}`)).toString("utf8")
    : undefined;
}

/** An openid-client configuration for one exchange, authenticating as the provider expects. */
export function oidcConfiguration(
  rt: ProviderRuntime,
  provider: StoredOauthProvider,
  secret: string | undefined,
): oidc.Configuration {
  if (!rt.oidc) throw new Error(`${provider.displayName} is not an OpenID Connect provider`);
  const config = new oidc.Configuration(
    rt.oidc.server,
    provider.clientId,
    undefined,
    secret ? oidc.ClientSecretPost(secret) : oidc.None(),
  );
  if (provider.allowInsecureHttp) oidc.allowInsecureRequests(config);
  return config;
}

/** The app's provider with this id, or 404 OAUTH_PROVIDER_NOT_FOUND. */
export function providerOf(app: App, id: string): StoredOauthProvider {
  const p = app.oauthProviders.find((x) => x.id === id);
  if (!p) throw apiError(ErrorCode.OAUTH_PROVIDER_NOT_FOUND, `No OAuth provider ${id} for this app`);
  return p;
}
