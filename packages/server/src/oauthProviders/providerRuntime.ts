import { ErrorCode } from "@latchkey/protocol";
import { createRemoteJWKSet } from "jose";
import * as oidc from "openid-client";
import type { App, StoredOauthProvider } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";

export interface ProviderRuntime {
  config: oidc.Configuration;
  jwks: ReturnType<typeof createRemoteJWKSet>;
  at: number;
}

const RUNTIME_TTL_MS = 10 * 60 * 1000;

/** Discovery, the client and the JWKS of a provider, cached in the service for ten minutes. */
export async function providerRuntime(
  ctx: Pick<ServiceContext, "keyring" | "now" | "caches">,
  params: { app: App; provider: StoredOauthProvider },
): Promise<ProviderRuntime> {
  const { app, provider: p } = params;
  const runtimes = ctx.caches.providerRuntimes as Map<string, ProviderRuntime>;
  const key = `${app.id}/${p.id}/${p.issuer}/${p.clientId}`;
  const cached = runtimes.get(key);
  if (cached && ctx.now() - cached.at < RUNTIME_TTL_MS) return cached;
  const secret = p.sealedClientSecret
    ? (await ctx.keyring.open(p.sealedClientSecret, `oauth_client:${app.id}:${p.id}`)).toString("utf8")
    : undefined;
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(p.issuer),
      p.clientId,
      undefined,
      secret ? oidc.ClientSecretPost(secret) : oidc.None(),
      p.allowInsecureHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  } catch {
    throw apiError(ErrorCode.OAUTH_EXCHANGE_FAILED, `Could not reach ${p.displayName}`);
  }
  const jwksUri = config.serverMetadata().jwks_uri;
  if (!jwksUri) throw apiError(ErrorCode.OAUTH_EXCHANGE_FAILED, `${p.displayName} publishes no JWKS`);
  const runtime = { config, jwks: createRemoteJWKSet(new URL(jwksUri)), at: ctx.now() };
  runtimes.set(key, runtime);
  return runtime;
}

/** The app's provider with this id, or 404 OAUTH_PROVIDER_NOT_FOUND. */
export function providerOf(app: App, id: string): StoredOauthProvider {
  const p = app.oauthProviders.find((x) => x.id === id);
  if (!p) throw apiError(ErrorCode.OAUTH_PROVIDER_NOT_FOUND, `No OAuth provider ${id} for this app`);
  return p;
}
