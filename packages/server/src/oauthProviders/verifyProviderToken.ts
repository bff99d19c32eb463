import { createHash } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import { jwtVerify } from "jose";
import type { App } from "../apps/appDirectory";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";
import { verifyIdentityToken } from "./identityToken";
import { providerOf, providerRuntime } from "./providerRuntime";

export const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

export interface VerifiedProviderToken {
  providerName: string;
  issuer: string;
  subject: string;
  email: string | null;
  tokenHash: string;
  /** The name the provider gave at that sign-in (Apple's first authorisation), if any. */
  name: string | null;
}

/**
 * An ID token offered for linking must be one this service itself received at its callback for this app
 * (so a token captured elsewhere cannot be attached), unused for linking, and still valid by signature,
 * issuer, audience and expiry.
 */
export async function verifyProviderToken(
  ctx: Pick<ServiceContext, "db" | "keyring" | "now" | "caches" | "serviceKeys">,
  params: {
    app: App;
    providerName: string;
    token: string;
    callerOrgId: string;
    targetPublicKey?: string | undefined;
  },
): Promise<VerifiedProviderToken> {
  const { app, token, callerOrgId, targetPublicKey } = params;
  const provider = providerOf(app, params.providerName);
  const tokenHash = sha256hex(token);
  const request = await ctx.db
    .selectFrom("oauth_requests")
    .select(["request_key", "linked_at", "expires_at", "link_org_id", "fetch_only", "nonce", "display_name"])
    .where("id_token_hash", "=", tokenHash)
    .where("app_id", "=", app.id)
    .executeTakeFirst();
  if (request?.link_org_id && request.link_org_id !== callerOrgId) {
    throw apiError(ErrorCode.OAUTH_INVALID_TOKEN, "This ID token was issued to link another account");
  }
  // A token fetched while signed in carries the fetching browser's key hash as its nonce: only that
  // browser may link it (a crafted return link cannot make another user's browser link it).
  if (request?.fetch_only === 1 && (!targetPublicKey || sha256hex(targetPublicKey) !== request.nonce)) {
    throw apiError(
      ErrorCode.OAUTH_INVALID_TOKEN,
      "This ID token was fetched by another browser: add the provider again from this one",
    );
  }
  if (!request || request.linked_at !== null) {
    throw apiError(
      ErrorCode.OAUTH_INVALID_TOKEN,
      "This ID token was not issued to this app's sign-in, or was already used",
    );
  }
  const rt = await providerRuntime(ctx, { app, provider });
  let payload: Record<string, unknown>;
  try {
    // An OAuth 2.0 provider has no ID token: the service wrote this one (identityToken.ts).
    if (!rt.oidc)
      payload = await verifyIdentityToken(ctx, {
        token,
        issuer: provider.issuer,
        audience: provider.clientId,
      });
    else
      ({ payload } = await jwtVerify(token, rt.oidc.jwks, {
        issuer: provider.issuer,
        audience: provider.clientId,
        clockTolerance: 30,
        currentDate: new Date(ctx.now()),
      }));
  } catch (e) {
    const reason = (e as { code?: string }).code ?? "invalid";
    throw apiError(ErrorCode.OAUTH_INVALID_TOKEN, `The ID token is not valid (${reason})`);
  }
  return {
    providerName: provider.id,
    issuer: String(payload.iss),
    subject: String(payload.sub),
    email: typeof payload.email === "string" ? payload.email.toLowerCase() : null,
    tokenHash,
    name: request.display_name ?? null,
  };
}
