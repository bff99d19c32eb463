import type { OauthPopupMessage } from "@latchkey/protocol";
import type { oauthStateSchema } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import type { App, StoredOauthProvider } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { issueSession } from "../../sessions/issueSession";
import type { UserRecord } from "../../users/userStore";

/** The state the browser carried through the provider (readCallbackState.ts decodes it). */
export type OauthState = z.output<typeof oauthStateSchema>;

/** How the callback answers: a redirect to the app, a pop-up page posting to its opener, or a page. */
export type CallbackAnswer =
  | { kind: "redirect"; location: string }
  | { kind: "popup"; origin: string; message: OauthPopupMessage }
  | { kind: "page"; status: number; title: string; message: string };

/** A page of the service's own: used until the state names where an answer may go. */
export function invalidPage(message: string): CallbackAnswer {
  return { kind: "page", status: 400, title: "Sign-in failed", message };
}

/** The message to the app: posted to the opener for a pop-up, or in the redirect URL's query. */
export function answer(state: OauthState, message: OauthPopupMessage): CallbackAnswer {
  if (state.mode === "popup")
    return { kind: "popup", origin: new URL(state.openerOrigin ?? "").origin, message };
  const target = new URL(state.redirectUrl ?? "");
  for (const [k, v] of Object.entries(message)) {
    if (v !== undefined && k !== "status") target.searchParams.set(k, String(v));
  }
  if (message.status !== "SUCCESS" && message.status !== "ERROR")
    target.searchParams.set("status", message.status);
  return { kind: "redirect", location: target.toString() };
}

/** A failure told to the app (its allowed destination is known by then). */
export function answerError(state: OauthState, error: string): CallbackAnswer {
  return answer(state, { status: "ERROR", error, authProvider: state.authProviderId });
}

/** A session for `user`, sealed to the browser's key, and the answer that carries it. */
export async function answerSignedIn(
  ctx: ServiceContext,
  params: {
    state: OauthState;
    app: App;
    provider: StoredOauthProvider;
    user: UserRecord;
    idToken: string;
    isSignup: boolean;
    ip: string;
  },
): Promise<CallbackAnswer> {
  const { state, app, provider, user, idToken, isSignup, ip } = params;
  const session = await issueSession(ctx, {
    user,
    targetPublicKey: state.targetPublicKey,
    expirationSeconds: state.expirationSeconds,
    name: "oauth",
    signedInBy: "oauth",
    signUp: isSignup,
  });
  await ctx.audit(isSignup ? "user.signup" : "user.signin", {
    appId: app.id,
    userId: user.id,
    ip,
    details: { method: "oauth", provider: provider.id },
  });
  return answer(state, {
    status: "SUCCESS",
    bundle: session.credentialBundle,
    orgId: user.orgId,
    idToken,
    isSignup,
    authProvider: provider.id,
  });
}
