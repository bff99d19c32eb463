import { createSigner, type Signer } from "@latchkey/core";
import type { QueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { type ResolvedUiConfig, resolveUiConfig } from "./config";
import { checkService } from "./flow/checkService";
import { type AuthFlow, createAuthFlow } from "./flow/createAuthFlow";
import { type AuthUiStore, createAuthUiStore } from "./flow/store";
import type { UiConfig } from "./types";

/** Where the service is and who the app is: the provider's `config`. */
export interface LatchkeyConfig {
  /** The signer service, e.g. `https://auth.example.com`. */
  serviceUrl: string;
  /** The app's API key (`latchkey serve --dev` prints the dev app's). */
  apiKey: string;
  /** The app's id on the service; narrows the auth frame to this app's origins. */
  appId?: string;
  /** Where magic links lead (must be on the app's allow-list); the service's default otherwise. */
  redirectUrl?: string;
  ui?: UiConfig;
}

export interface LatchkeyContextValue {
  signer: Signer;
  ui: ResolvedUiConfig;
  /** The modal's step machine: one per provider (wagmi's config plays this part). */
  flow: AuthFlow;
  /** The modal's state (the flow's store). */
  store: AuthUiStore;
  /** The host's TanStack Query client; the hooks make a private one on first use otherwise. */
  query: { client: QueryClient | undefined };
}

const LatchkeyContext = createContext<LatchkeyContextValue | null>(null);

/** The provider's props: the config, and optionally your TanStack Query client or your own signer. */
export interface LatchkeyProviderProps {
  config: LatchkeyConfig;
  /** Share the app's TanStack Query client; a private one is made otherwise. */
  queryClient?: QueryClient;
  /** Bring your own signer (tests, custom key holders); made from `config` otherwise. */
  signer?: Signer;
  children?: ReactNode;
}

/**
 * Holds the signer, the modal's state and the UI config for everything below it. Rendering it never
 * touches `window`: the signer starts (reads its session, opens the auth frame) in an effect, so it is
 * safe in server rendering (Next.js App Router: render it inside a client component).
 *
 * @example
 * <LatchkeyProvider config={{ serviceUrl: "https://auth.example.com", apiKey }}>
 *   <App />
 *   <AuthModal />
 * </LatchkeyProvider>
 */
export function LatchkeyProvider({ config, queryClient, signer, children }: LatchkeyProviderProps) {
  const [own] = useState(() => {
    const ownSigner =
      signer ??
      createSigner({
        baseUrl: config.serviceUrl,
        apiKey: config.apiKey,
        ...(config.appId ? { appId: config.appId } : {}),
        ...(config.redirectUrl ? { redirectUrl: config.redirectUrl } : {}),
      });
    const store = createAuthUiStore();
    // The latest `ui`, for the flow: it outlives a render.
    const uiRef = { current: resolveUiConfig(config.ui) };
    return {
      signer: ownSigner,
      store,
      uiRef,
      flow: createAuthFlow({ signer: ownSigner, store, getUi: () => uiRef.current }),
      query: { client: queryClient },
    };
  });
  useEffect(() => {
    void own.signer.init().catch(() => {});
    // First contact: a service that is down or refuses this page is said at once, not after a code screen.
    void checkService(own.flow).catch(() => {});
  }, [own.signer, own.flow]);
  const ui = resolveUiConfig(config.ui);
  own.uiRef.current = ui;
  const { signer: ownSigner, store, flow, query } = own;
  return (
    <LatchkeyContext.Provider value={{ signer: ownSigner, store, flow, query, ui }}>
      {children}
    </LatchkeyContext.Provider>
  );
}

/** The provider's value; throws outside a `LatchkeyProvider`. */
export function useLatchkeyContext(): LatchkeyContextValue {
  const value = useContext(LatchkeyContext);
  if (!value) throw new Error("Latchkey hooks must be used inside <LatchkeyProvider>");
  return value;
}
