import { signerRoutes } from "@latchkey/protocol/wire";
import type { AuthMethods } from "../../client/types";
import type { User } from "../../session/types";
import { toStateError } from "../../signer/state";
import { type StepUp, withStepUp } from "../../signer/stepUp";
import type { ReturnHandler, SignerBase } from "../../signer/types";

/** How long a redirect started by `addOauthProvider` may take to come back (the service's request TTL). */
const LINK_INTENT_TTL_MS = 10 * 60 * 1000;

interface LinkIntent {
  authProviderId: string;
  userId: string;
  startedAtMs: number;
}

const intentKey = (signer: SignerBase) => `${signer.sessionManager.sessionKey}:oauth-link`;

/**
 * Links an ID token to the user, with this browser's target key (a fetched token needs it), and the
 * step-up proof a session that is not a fresh sign-in needs.
 */
export async function linkProvider(
  signer: SignerBase,
  user: User,
  providerName: string,
  oidcToken: string,
  stepUp?: StepUp,
): Promise<AuthMethods["oauthProviders"]> {
  const targetPublicKey = await signer.keyHolder.getTargetPublicKey();
  const { oauthProviders } = await withStepUp(signer, stepUp, ({ stamper, ...proof }) =>
    signer.client.callStamped(signerRoutes.addOauthProvider, {
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        oauthProviders: [{ providerName, oidcToken, ...(targetPublicKey ? { targetPublicKey } : {}) }],
        ...proof,
      },
      stamper,
    }),
  );
  return oauthProviders;
}

/**
 * Remembers, in this origin's storage, that this user asked to link this provider, before the page leaves
 * for it. Only a page that comes back with an ID token for that intent links it ({@link linkRedirectReturn}),
 * so a crafted link carrying someone else's ID token links nothing. Answers a function that forgets it.
 */
export function rememberLinkIntent(signer: SignerBase, user: User, authProviderId: string): () => void {
  const intent: LinkIntent = {
    authProviderId,
    userId: user.userId,
    startedAtMs: signer.sessionManager.clock.now(),
  };
  const storage = signer.sessionManager.storage;
  storage.setItem(intentKey(signer), JSON.stringify(intent));
  return () => storage.removeItem(intentKey(signer));
}

/** The page came back from `addOauthProvider({mode: "redirect"})`: link the provider if this user asked. */
export const linkRedirectReturn: ReturnHandler = {
  name: "oauthLinkRedirect",
  phase: "afterSession",
  async handle(signer, params) {
    if (params.status !== "FETCHED_ID_TOKEN_ONLY" && !(params.error && !params.bundle)) return;
    const storage = signer.sessionManager.storage;
    const raw = storage.getItem(intentKey(signer));
    storage.removeItem(intentKey(signer));
    let intent: LinkIntent | undefined;
    try {
      intent = raw ? (JSON.parse(raw) as LinkIntent) : undefined;
    } catch {
      intent = undefined;
    }
    const user = signer.store.getState().user;
    if (
      !intent ||
      !user ||
      params.error ||
      !params.idToken ||
      intent.userId !== user.userId ||
      intent.authProviderId !== params.authProvider ||
      signer.sessionManager.clock.now() - intent.startedAtMs > LINK_INTENT_TTL_MS
    )
      return;
    try {
      const oauthProviders = await linkProvider(signer, user, intent.authProviderId, params.idToken);
      signer._internal.emitter.emit("oauthProviderAdded", {
        providerName: intent.authProviderId,
        oauthProviders,
      });
    } catch (error) {
      signer.store.setState({ error: toStateError(error) });
    }
  },
};
