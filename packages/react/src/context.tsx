import {
  createSigner,
  type ExternalWalletsConfig,
  type Signer,
  type SignerOptions,
  type SmartAccountChainConfig,
  setSignInPrompt,
  setSigningConfirmation,
} from "@latchkey/core";
import type { QueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { type ResolvedUiConfig, resolveUiConfig } from "./config";
import { checkService } from "./flow/checkService";
import { externalWalletsWarning } from "./flow/configWarnings";
import { type AuthFlow, createAuthFlow } from "./flow/createAuthFlow";
import { watchForMissingAuthModal } from "./flow/modalPresence";
import { modalSignInPrompt } from "./flow/signInPrompt";
import { type AuthUiStore, createAuthUiStore } from "./flow/store";
import { en } from "./texts/en";
import { loadLocale, mergeTexts } from "./texts/resolve";
import type { Locale, LocaleCode, TextOverrides, Texts } from "./texts/types";
import type { UiConfig } from "./types";

/** Where the service is and who the app is: the provider's `config`. */
export interface LatchkeyConfig {
  /** The signer service, e.g. `https://auth.example.com`. */
  serviceUrl: string;
  /** The app's API key (`latchkey serve --dev` prints the dev app's); or give `jwt`. */
  apiKey?: string;
  /** A JWT from the app's backend in place of the API key (the app's `jwt` issuer and JWKS on the service). */
  jwt?: string;
  /** The app's root organisation id (spec §3 session settings); read from the service when not given. */
  rootOrgId?: string;
  /** The auth iframe's element id; set it when two providers share a page. */
  iframeId?: string;
  /** The passkeys' relying-party id (the page's host by default; must be one the app allows). */
  rpId?: string;
  /** The service's OAuth callback URL (`<serviceUrl>/oauth/callback` by default). */
  oauthCallbackUrl?: string;
  /** Pop-up social sign-in opens its window inside `authenticate()` (spec §9: off by default). */
  enablePopupOauth?: boolean;
  /** Session lifetime in seconds (900 by default, spec §9). */
  expirationSeconds?: number;
  /** The app's id on the service; narrows the auth frame to this app's origins. */
  appId?: string;
  /** Where magic links lead (must be on the app's allow-list); the service's default otherwise. */
  redirectUrl?: string;
  /**
   * Chains for the user's smart account: `{ chain, rpcUrl?, bundlerUrl, policyId? }` each (EntryPoint
   * v0.8; `policyId` names a sponsorship policy of this app on the service). The first is the default.
   */
  chains?: readonly SmartAccountChainConfig[];
  /**
   * The smart account new users get: `{ kind: "7702" }` (the default: the user's own address, delegated to
   * Simple7702Account) or `{ kind: "4337" }` (a SimpleAccount). A user keeps the kind first recorded.
   */
  smartAccount?: SignerOptions["smartAccount"];
  /**
   * External wallets (EOA): injected wallets the page announces and WalletConnect, as
   * `externalWallets({ chains?, walletConnect?: walletConnect({ projectId }) })` of
   * `@latchkey/core/external-wallets` (and `@latchkey/core/walletconnect`) makes them; users connect them
   * from an `external_wallets` section of the modal. Needs `@wagmi/core` installed.
   */
  externalWallets?: ExternalWalletsConfig;
  /**
   * The user's Solana wallet, as `solana({ rpcUrl, policyId?, chain? })` of `@latchkey/core/solana` makes
   * it (`policyId` names a Solana sponsorship policy of this app on the service: its fee payer pays the
   * fees). `useSolanaTransaction` sends there. Needs `@solana/kit` installed.
   */
  solana?: SignerOptions["solana"];
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
  /** The modal's texts: the locale's, with the app's overrides. */
  texts: Texts;
  /** The language of `texts` (BCP 47), the modal's `lang`. */
  locale: string;
}

const LatchkeyContext = createContext<LatchkeyContextValue | null>(null);

/** The provider's props: the config, and optionally your TanStack Query client or your own signer. */
export interface LatchkeyProviderProps {
  config: LatchkeyConfig;
  /** Share the app's TanStack Query client; a private one is made otherwise. */
  queryClient?: QueryClient;
  /** Bring your own signer (tests, custom key holders); made from `config` otherwise. */
  signer?: Signer;
  /**
   * The modal's language: a shipped locale's code (`"de"`, `"fr"`, `"es"`; loaded on demand, English
   * until it arrives) or a `Locale` object (`import { de } from "@latchkey/react/locales"`: there at
   * the first render, server rendering included). English by default.
   */
  locale?: LocaleCode | Locale;
  /** Any of the modal's texts, replacing the locale's (typed: `TextOverrides`). */
  texts?: TextOverrides;
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
export function LatchkeyProvider({
  config,
  queryClient,
  signer,
  locale,
  texts: overrides,
  children,
}: LatchkeyProviderProps) {
  const base = useLocale(locale);
  const texts = mergeTexts(base.texts, overrides);
  const [own] = useState(() => {
    const ownSigner =
      signer ??
      createSigner({
        baseUrl: config.serviceUrl,
        ...sessionSettingsOf(config),
        ...(config.redirectUrl ? { redirectUrl: config.redirectUrl } : {}),
        ...(config.chains ? { chains: config.chains } : {}),
        ...(config.smartAccount ? { smartAccount: config.smartAccount } : {}),
        ...(config.solana ? { solana: config.solana } : {}),
        ...(config.externalWallets ? { externalWallets: config.externalWallets } : {}),
      });
    const store = createAuthUiStore();
    // The latest `ui` and texts, for the flow: it outlives a render.
    const uiRef = { current: resolveUiConfig(config.ui) };
    const textsRef = { current: texts };
    return {
      signer: ownSigner,
      store,
      uiRef,
      textsRef,
      flow: createAuthFlow({
        signer: ownSigner,
        store,
        getUi: () => uiRef.current,
        getTexts: () => textsRef.current,
      }),
      query: { client: queryClient },
    };
  });
  useEffect(() => {
    void own.signer.init().catch(() => {});
    // First contact: a service that is down or refuses this page is said at once, not after a code screen.
    void checkService(own.flow).catch(() => {});
  }, [own.signer, own.flow]);
  useEffect(
    // The modal confirms this signer's signatures (when `ui.confirmTransactions` or the call asks).
    () =>
      setSigningConfirmation(own.signer, async (c) => {
        // Off (the default) answers at once; the step's code loads with the first confirmation shown.
        if (!c.requested && !own.flow.getUi().confirmTransactions) return true;
        const { requestSigningConfirmation } = await import("./flow/transitions/confirm");
        return requestSigningConfirmation(own.flow, c);
      }),
    [own.signer, own.flow],
  );
  // A dapp connecting while signed out (wagmi, RainbowKit, eth_requestAccounts) opens this modal.
  useEffect(
    () => setSignInPrompt(own.signer, modalSignInPrompt(own.signer, own.store)),
    [own.signer, own.store],
  );
  useEffect(() => {
    // Development builds only (dropped from production ones): the modal opened with no <AuthModal /> to show it.
    if (process.env.NODE_ENV !== "production") return watchForMissingAuthModal(own.store);
  }, [own.store]);
  const configWarning = process.env.NODE_ENV !== "production" ? externalWalletsWarning(config) : undefined;
  useEffect(() => {
    // Development builds only: a wallet section whose wallets were never configured fails on the first pick.
    if (configWarning) console.warn(configWarning);
  }, [configWarning]);
  const ui = resolveUiConfig(config.ui);
  own.uiRef.current = ui;
  own.textsRef.current = texts;
  const { signer: ownSigner, store, flow, query } = own;
  return (
    <LatchkeyContext.Provider value={{ signer: ownSigner, store, flow, query, ui, texts, locale: base.code }}>
      {children}
    </LatchkeyContext.Provider>
  );
}

const SESSION_SETTINGS = [
  "apiKey",
  "jwt",
  "appId",
  "rootOrgId",
  "iframeId",
  "rpId",
  "oauthCallbackUrl",
  "enablePopupOauth",
  "expirationSeconds",
] as const satisfies readonly (keyof LatchkeyConfig & keyof SignerOptions)[];

/** The session settings of spec §3 the config gives, as the signer's options (absent ones left out). */
function sessionSettingsOf(config: LatchkeyConfig): Partial<SignerOptions> {
  const settings: Partial<Record<(typeof SESSION_SETTINGS)[number], unknown>> = {};
  for (const name of SESSION_SETTINGS) if (config[name] !== undefined) settings[name] = config[name];
  return settings as Partial<SignerOptions>;
}

/** The locale object for the `locale` prop: a shipped one by code is loaded after mount. */
function useLocale(locale: LocaleCode | Locale | undefined): Locale {
  const code = typeof locale === "string" ? locale : undefined;
  const [loaded, setLoaded] = useState<Locale | undefined>(undefined);
  useEffect(() => {
    if (!code || code === "en") return;
    let live = true;
    loadLocale(code).then(
      (l) => live && setLoaded(l),
      (error: unknown) => console.error(`[latchkey] the "${code}" texts could not be loaded`, error),
    );
    return () => {
      live = false;
    };
  }, [code]);
  if (typeof locale === "object") return locale;
  return code && loaded?.code === code ? loaded : en;
}

/** The provider's value; throws outside a `LatchkeyProvider`. */
export function useLatchkeyContext(): LatchkeyContextValue {
  const value = useContext(LatchkeyContext);
  if (!value) throw new Error("Latchkey hooks must be used inside <LatchkeyProvider>");
  return value;
}
