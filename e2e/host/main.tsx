// The e2e host page: a bare app that embeds the modal with the UI config given in the query string
// (`?ui=<JSON>&app=ml&card=1&locale=de&texts=<JSON>`), so each test can show what an option changes. `card=only` renders the
// inline AuthCard without an AuthModal, as an app that embeds only the card would.

import type { ExternalWalletsConfig, ExternalWalletsOptions } from "@latchkey/core";
import * as core from "@latchkey/core";
import { externalWallets as makeExternalWallets } from "@latchkey/core/external-wallets";
import { walletConnect } from "@latchkey/core/walletconnect";
import {
  AuthCard,
  AuthModal,
  type LatchkeyConfig,
  LatchkeyProvider,
  type LocaleCode,
  type TextOverrides,
  type UiConfig,
  useAuthModal,
  useExternalWallet,
  useLogout,
  useSendUserOperation,
  useSigner,
  useSignerStatus,
  useSignMessage,
  useSwitchExternalWalletChain,
  useUser,
} from "@latchkey/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { defineChain } from "viem";

declare global {
  interface Window {
    LK_E2E: { serviceUrl: string; devApiKey: string; magicLink: { id: string; apiKey: string } };
    lkSuccess: number;
    /** Analytics events the modal reported (`ui.onEvent`). */
    lkEvents: string[];
    /** The provider's signer, for tests that set up the account (TOTP, passkeys) by hand. */
    lkSigner: ReturnType<typeof useSigner>;
    /** @latchkey/core's actions, for tests that call one with the page's signer (its errors, say). */
    lkCore: typeof core;
  }
}

const params = new URL(location.href).searchParams;
const ui = JSON.parse(params.get("ui") ?? "{}") as UiConfig;
const magic = params.get("app") === "ml";

/**
 * `?wallets=<JSON>`: external wallets on these chains (`{chains: [{id, rpcUrl}], walletConnect?, siwe?,
 * connectTimeoutMs?}`).
 */
interface WalletParams extends Omit<ExternalWalletsOptions, "chains"> {
  chains: { id: number; rpcUrl: string }[];
}
const walletParams = params.get("wallets")
  ? (JSON.parse(params.get("wallets") as string) as WalletParams)
  : undefined;
const externalWallets: ExternalWalletsConfig | undefined =
  walletParams &&
  makeExternalWallets({
    ...walletParams,
    walletConnect: walletParams.walletConnect && walletConnect(walletParams.walletConnect),
    chains: walletParams.chains.map(({ id, rpcUrl }) => ({
      chain: defineChain({
        id,
        name: `Chain ${id}`,
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      }),
      rpcUrl,
    })),
  });

/** The external wallet as the app sees it: account, chain, SIWE token; switch chain; send. */
function WalletPanel() {
  const wallet = useExternalWallet();
  const { switchChainAsync } = useSwitchExternalWalletChain();
  const { sendUserOperationAsync } = useSendUserOperation({ waitForTxn: true });
  const { logout } = useLogout();
  const [result, setResult] = useState("");
  const run = (f: () => Promise<string>) => () =>
    f().then(setResult, (e: { code?: string; message: string }) =>
      setResult(`error ${e.code ?? ""}: ${e.message}`),
    );
  const to = "0x000000000000000000000000000000000000dEaD";
  return (
    <section>
      <div data-testid="wallet-status">{wallet.status}</div>
      {wallet.address && <code data-testid="wallet-address">{wallet.address}</code>}
      {wallet.chainId && <code data-testid="wallet-chain">{wallet.chainId}</code>}
      {wallet.connector && <code data-testid="wallet-connector">{wallet.connector.id}</code>}
      {wallet.siwe && <code data-testid="wallet-siwe">{wallet.siwe.token}</code>}
      {walletParams?.chains.map(({ id }) => (
        <button
          key={id}
          type="button"
          onClick={run(async () => `chain ${await switchChainAsync({ chainId: id })}`)}
        >
          Switch to {id}
        </button>
      ))}
      <button
        type="button"
        onClick={run(async () => (await sendUserOperationAsync({ uo: { target: to, value: 1000n } })).hash)}
      >
        Send transaction
      </button>
      <button
        type="button"
        onClick={run(
          async () => (await sendUserOperationAsync({ uo: [{ target: to }, { target: to }] })).hash,
        )}
      >
        Send batch
      </button>
      <button type="button" onClick={() => logout()}>
        Disconnect wallet
      </button>
      <output data-testid="wallet-result">{result}</output>
    </section>
  );
}
window.lkSuccess = 0;
window.lkCore = core;
window.lkEvents = [];

function Host() {
  const { openAuthModal, isOpen } = useAuthModal();
  window.lkSigner = useSigner();
  const { status } = useSignerStatus();
  const user = useUser();
  const { logout } = useLogout();
  const { signMessageAsync } = useSignMessage();
  const [signature, setSignature] = useState("");
  return (
    <main>
      <div data-testid="status">{status}</div>
      <div data-testid="modal-open">{String(isOpen)}</div>
      {user && <code data-testid="address">{user.address}</code>}
      <button type="button" onClick={() => openAuthModal()}>
        Open sign-in
      </button>
      {user && (
        <>
          <button
            type="button"
            onClick={async () => setSignature(await signMessageAsync({ message: "e2e" }))}
          >
            Sign
          </button>
          <code data-testid="signature">{signature}</code>
          <button type="button" onClick={() => logout()}>
            Log out
          </button>
        </>
      )}
      {params.has("card") && !user && <AuthCard />}
      {walletParams && <WalletPanel />}
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider
    config={{
      // `?service=` and `?key=` point the page at a wrong service or key (first-contact tests).
      serviceUrl: params.get("service") ?? window.LK_E2E.serviceUrl,
      apiKey: params.get("key") ?? (magic ? window.LK_E2E.magicLink.apiKey : window.LK_E2E.devApiKey),
      appId: magic ? window.LK_E2E.magicLink.id : "dev",
      // The magic link comes back to this page with the same app.
      redirectUrl: magic ? `${location.origin}/?app=ml` : `${location.origin}/`,
      ...(externalWallets ? { externalWallets } : {}),
      // `?session=<JSON>`: session settings of spec §3 (iframeId, rootOrgId, rpId, expirationSeconds…).
      ...(JSON.parse(params.get("session") ?? "{}") as Partial<LatchkeyConfig>),
      ui: {
        ...ui,
        onAuthSuccess: () => {
          window.lkSuccess++;
        },
        onEvent: ({ name }) => {
          window.lkEvents.push(name);
        },
      },
    }}
    // `?locale=de` and `?texts=<JSON>`: the modal's language and text overrides.
    locale={(params.get("locale") as LocaleCode | null) ?? undefined}
    texts={JSON.parse(params.get("texts") ?? "{}") as TextOverrides}
  >
    <Host />
    {params.get("card") !== "only" && <AuthModal />}
  </LatchkeyProvider>,
);
