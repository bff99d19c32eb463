import { solana } from "@latchkey/core/solana";
import { AuthModal, LatchkeyProvider, type LocaleCode } from "@latchkey/react";
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { AnnounceWallet } from "./AnnounceWallet";
import { App, type ThemeMode } from "./App";
import "./app.css";
import { readDemoChain } from "./demoChain";
import { readDemoSolana } from "./demoSolana";
import { readDemoWallets } from "./demoWallets";
import { DEMO_PROVIDERS, useOauthMode } from "./oauthMode";

const serviceUrl = import.meta.env.VITE_LATCHKEY_URL ?? "http://127.0.0.1:8787";
const apiKey = import.meta.env.VITE_LATCHKEY_API_KEY ?? "";
const mailboxUrl = import.meta.env.VITE_LATCHKEY_MAILBOX ?? `${serviceUrl}/dev/mailbox`;
// The dev chain of `npm start` (hardhat, bundler, the service's paymaster); none in a build without it.
const demoChain = readDemoChain(import.meta.env.VITE_LATCHKEY_CHAIN);
// External wallets on the dev chains, and WalletConnect through `npm start`'s local relay.
const demoWallets = readDemoWallets(import.meta.env.VITE_LATCHKEY_WALLETS);
// The local Solana node of `npm start` (litesvm) and the dev app's Solana sponsorship policy.
const demoSolana = readDemoSolana(import.meta.env.VITE_LATCHKEY_SOLANA);

function Root() {
  const [theme, setTheme] = useState<ThemeMode>(() =>
    matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  );
  const oauthMode = useOauthMode();
  const [locale, setLocale] = useState<LocaleCode>("en");
  return (
    <LatchkeyProvider
      locale={locale}
      config={{
        serviceUrl,
        apiKey,
        appId: "dev",
        redirectUrl: `${location.origin}/`,
        ...(demoChain ? { chains: [demoChain.config] } : {}),
        ...(demoWallets ? { externalWallets: demoWallets } : {}),
        ...(demoSolana ? { solana: solana({ rpcUrl: demoSolana.rpcUrl, chain: "solana:localnet" }) } : {}),
        ui: {
          illustrationStyle: "flat",
          termsUrl: "https://example.com/terms",
          theme: { mode: theme, accentColor: "#4f46e5" },
          header: <span className="modal-logo">Latchkey Demo</span>,
          sections: [
            [{ type: "email" }],
            [{ type: "passkey" }],
            DEMO_PROVIDERS.map((p) => ({ type: "social" as const, mode: oauthMode, ...p })),
            ...(demoWallets ? [[{ type: "external_wallets" as const }]] : []),
          ],
          supportUrl: "https://example.com/support",
          addPasskeyOnSignup: true,
          // Every signature is shown first: what it does, its warnings, and Confirm or Cancel.
          confirmTransactions: true,
          confirmation: { valueThreshold: 10n ** 18n },
          onEvent: ({ name }) => console.info("[latchkey event]", name),
        },
      }}
    >
      <App
        theme={theme}
        onTheme={setTheme}
        locale={locale}
        onLocale={setLocale}
        mailboxUrl={mailboxUrl}
        demoChain={demoChain}
        demoWallets={demoWallets}
        demoSolana={demoSolana}
      />
      <AuthModal />
      {demoChain && <AnnounceWallet />}
    </LatchkeyProvider>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
