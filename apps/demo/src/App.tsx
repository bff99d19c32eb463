import type { ExternalWalletsOptions } from "@latchkey/core";
import {
  type LocaleCode,
  useAuthModal,
  useExternalWallet,
  useLogout,
  useSignerStatus,
  useSignMessage,
  useSignTypedData,
  useUser,
} from "@latchkey/react";
import { lazy, Suspense, useState } from "react";
import { type Hex, verifyMessage, verifyTypedData } from "viem";
import { Account } from "./Account";
import { AuditTrail } from "./AuditTrail";
import { BotGrantCard } from "./BotGrant";
import type { DemoChain } from "./demoChain";
import type { DemoSolana } from "./demoSolana";
import { ExternalWalletDashboard } from "./ExternalWallet";
import { OauthModeSwitch } from "./oauthMode";
import { PolicyDemo } from "./PolicyDemo";
import { SmartAccountCard } from "./SmartAccount";

// @solana/kit and the wallet-standard wallet load after sign-in, not with the page.
const SolanaCard = lazy(() => import("./Solana"));

export type ThemeMode = "light" | "dark";

const typedData = {
  domain: { name: "Latchkey Demo", version: "1", chainId: 1 },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
} as const;

function short(value: string) {
  return value.length > 16 ? `${value.slice(0, 8)}…${value.slice(-6)}` : value;
}

function Copy({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="chip"
      aria-label={`Copy ${label}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1200);
        });
      }}
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

function Verified({ ok }: { ok: boolean | null }) {
  if (ok === null) return null;
  return (
    <div className={ok ? "verdict ok" : "verdict bad"} data-testid="verdict">
      {ok ? "✓ Signature verified: recovered address matches" : "✗ Signature does not verify"}
    </div>
  );
}

function SignMessageCard({ address }: { address: Hex }) {
  const [message, setMessage] = useState("Hello from Latchkey!");
  const [ok, setOk] = useState<boolean | null>(null);
  const { signMessageAsync, data, isPending, error, reset } = useSignMessage();
  return (
    <section className="card">
      <h3>Sign a message</h3>
      <p className="muted">EIP-191 personal message, signed by your embedded wallet.</p>
      <textarea
        aria-label="Message"
        value={message}
        rows={3}
        onChange={(e) => {
          setMessage(e.target.value);
          setOk(null);
          reset();
        }}
      />
      <button
        type="button"
        className="btn primary"
        disabled={isPending || !message}
        onClick={async () => {
          const signature = await signMessageAsync({ message });
          setOk(await verifyMessage({ address, message, signature }));
        }}
      >
        {isPending ? "Signing…" : "Sign message"}
      </button>
      {data && (
        <pre className="sig" data-testid="message-signature">
          {data}
        </pre>
      )}
      <Verified ok={ok} />
      {error && <div className="verdict bad">{error.message}</div>}
    </section>
  );
}

function SignTypedDataCard({ address }: { address: Hex }) {
  const [ok, setOk] = useState<boolean | null>(null);
  const { signTypedDataAsync, data, isPending, error } = useSignTypedData();
  const message = {
    from: { name: "Ada", wallet: address },
    contents: "Typed data, signed without a browser extension.",
  };
  return (
    <section className="card">
      <h3>Sign typed data</h3>
      <p className="muted">EIP-712 structured data.</p>
      <pre className="code">{JSON.stringify(message, null, 2)}</pre>
      <button
        type="button"
        className="btn primary"
        disabled={isPending}
        onClick={async () => {
          const signature = await signTypedDataAsync({ ...typedData, message });
          setOk(await verifyTypedData({ ...typedData, message, address, signature }));
        }}
      >
        {isPending ? "Signing…" : "Sign typed data"}
      </button>
      {data && (
        <pre className="sig" data-testid="typed-signature">
          {data}
        </pre>
      )}
      <Verified ok={ok} />
      {error && <div className="verdict bad">{error.message}</div>}
    </section>
  );
}

export function App({
  theme,
  onTheme,
  locale,
  onLocale,
  mailboxUrl,
  demoChain,
  demoWallets,
  demoSolana,
}: {
  theme: ThemeMode;
  onTheme: (t: ThemeMode) => void;
  locale: LocaleCode;
  onLocale: (l: LocaleCode) => void;
  mailboxUrl: string;
  demoChain: DemoChain | null;
  demoWallets: ExternalWalletsOptions | null;
  demoSolana: DemoSolana | null;
}) {
  const { openAuthModal } = useAuthModal();
  const { isConnected, isInitializing } = useSignerStatus();
  const user = useUser();
  const { logout, isPending: loggingOut } = useLogout();
  const wallet = useExternalWallet();
  const onWallet = !user && wallet.status === "connected" && demoWallets;
  return (
    <div className="page" data-theme={theme}>
      <nav className="nav">
        <div className="brand">
          <span className="logo" aria-hidden>
            <svg aria-hidden="true" viewBox="0 0 32 32" width="28" height="28">
              <rect width="32" height="32" rx="8" fill="currentColor" />
              <path d="M11 15v-3a5 5 0 0110 0v3" stroke="#fff" strokeWidth="2.5" fill="none" />
              <rect x="9" y="15" width="14" height="10" rx="2" fill="#fff" />
            </svg>
          </span>
          Latchkey <span className="pill">demo</span>
        </div>
        <div className="nav-actions">
          <select
            className="btn ghost"
            aria-label="Modal language"
            value={locale}
            onChange={(e) => onLocale(e.target.value as LocaleCode)}
          >
            <option value="en">English</option>
            <option value="de">Deutsch</option>
            <option value="fr">Français</option>
            <option value="es">Español</option>
          </select>
          <button
            type="button"
            className="btn ghost"
            aria-label="Toggle dark mode"
            onClick={() => onTheme(theme === "dark" ? "light" : "dark")}
          >
            {theme === "dark" ? "☀" : "☾"}
          </button>
          {(isConnected && user) || onWallet ? (
            <button type="button" className="btn" onClick={() => logout()} disabled={loggingOut}>
              {loggingOut ? "Logging out…" : "Log out"}
            </button>
          ) : (
            <button
              type="button"
              className="btn primary"
              onClick={() => openAuthModal()}
              disabled={isInitializing}
            >
              Sign in
            </button>
          )}
        </div>
      </nav>

      {onWallet ? (
        <ExternalWalletDashboard wallets={demoWallets} />
      ) : isConnected && user ? (
        <main className="dashboard">
          <header className="welcome">
            <h1>Welcome{user.email ? `, ${user.email}` : ""}</h1>
            <p className="muted">
              Your wallets were created when you signed up. The keys never leave the signer service.
            </p>
          </header>
          <section className="card account">
            <h3>Your wallets</h3>
            <div className="row">
              <span className="label">EVM</span>
              <code data-testid="evm-address" title={user.address}>
                {user.address}
              </code>
              <Copy value={user.address} label="EVM address" />
            </div>
            {user.solanaAddress && (
              <div className="row">
                <span className="label">Solana</span>
                <code data-testid="solana-address" title={user.solanaAddress}>
                  {user.solanaAddress}
                </code>
                <Copy value={user.solanaAddress} label="Solana address" />
              </div>
            )}
          </section>
          <div className="grid">
            <SignMessageCard address={user.address} />
            <SignTypedDataCard address={user.address} />
          </div>
          <PolicyDemo chainId={demoChain?.config.chain.id ?? 31337} />
          {demoChain && <SmartAccountCard demo={demoChain} />}
          {demoSolana && user.solanaAddress && (
            <Suspense fallback={<section className="card solana">Loading Solana…</section>}>
              <SolanaCard demo={demoSolana} owner={user.solanaAddress} />
            </Suspense>
          )}
          <Account />
          {demoChain && <BotGrantCard demo={demoChain} />}
          <AuditTrail />
          <p className="muted center">
            Signed in as {short(user.address)}.{" "}
            <button type="button" className="linkish" onClick={() => logout()}>
              Log out
            </button>
          </p>
        </main>
      ) : (
        <main className="hero">
          <div className="hero-copy">
            <span className="eyebrow">Self-hosted sign-in + embedded wallet</span>
            <h1>
              Sign in with an email.
              <br />
              <span className="accent">Get a wallet that just works.</span>
            </h1>
            <p className="lead">
              Latchkey gives every user an EVM and Solana wallet the moment they sign in, with no extension,
              no seed phrase, and keys that stay on your own servers.
            </p>
            <div className="cta">
              <button
                type="button"
                className="btn primary big"
                onClick={() => openAuthModal()}
                disabled={isInitializing}
              >
                Sign in
              </button>
              <a className="btn big" href={mailboxUrl} target="_blank" rel="noreferrer">
                Open dev mailbox ↗
              </a>
            </div>
            <p className="hint">
              Use any email address: nothing is really sent. Codes and links land in the{" "}
              <a href={mailboxUrl} target="_blank" rel="noreferrer">
                dev mailbox
              </a>
              .
            </p>
            <OauthModeSwitch />
          </div>
          <ul className="features">
            <li>
              <strong>Email code or magic link</strong>
              <span>Six digits from the mailbox, and you are in.</span>
            </li>
            <li>
              <strong>Keys in an isolated frame</strong>
              <span>Your page never sees the session key.</span>
            </li>
            <li>
              <strong>Sign anything</strong>
              <span>Messages, EIP-712 typed data, transactions.</span>
            </li>
          </ul>
        </main>
      )}
      <footer className="foot">Latchkey demo · runs entirely on this machine</footer>
    </div>
  );
}
