import type { WalletConnectorInfo } from "@latchkey/core";

/** WalletConnect's mark (its blue bridge). */
const WalletConnectMark = () => (
  <svg viewBox="0 0 40 40" aria-hidden="true">
    <rect width="40" height="40" rx="10" fill="#3B99FC" />
    <path
      d="M12.6 15.3c4.1-4 10.7-4 14.8 0l.5.5c.2.2.2.5 0 .7l-1.7 1.6c-.1.1-.3.1-.4 0l-.7-.7c-2.8-2.8-7.4-2.8-10.3 0l-.7.7c-.1.1-.3.1-.4 0l-1.7-1.6c-.2-.2-.2-.5 0-.7l.6-.5Zm18.3 3.4 1.5 1.5c.2.2.2.5 0 .7l-6.8 6.6c-.2.2-.5.2-.7 0l-4.8-4.7c-.1-.1-.1-.1-.2 0l-4.8 4.7c-.2.2-.5.2-.7 0l-6.8-6.6c-.2-.2-.2-.5 0-.7l1.5-1.5c.2-.2.5-.2.7 0l4.8 4.7c.1.1.1.1.2 0l4.8-4.7c.2-.2.5-.2.7 0l4.8 4.7c.1.1.1.1.2 0l4.8-4.7c.2-.2.5-.2.7 0Z"
      fill="#fff"
    />
  </svg>
);

/** A wallet glyph for wallets without an icon, and the external-wallets button. */
export const WalletGlyph = () => (
  <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
    <rect x="3" y="6" width="18" height="13" rx="3" />
    <path d="M3 10h18M16 14.5h2" strokeLinecap="round" />
  </svg>
);

/**
 * A wallet's icon: the one it announced (EIP-6963 asks for a data URI; shown as an image, never as
 * markup), WalletConnect's mark, or a wallet glyph.
 */
export function WalletIcon({ connector }: { connector: WalletConnectorInfo }) {
  if (connector.type === "walletConnect")
    return (
      <span className="lk-wallet-icon">
        <WalletConnectMark />
      </span>
    );
  if (connector.icon) return <img className="lk-wallet-icon" src={connector.icon} alt="" />;
  return (
    <span className="lk-wallet-icon">
      <WalletGlyph />
    </span>
  );
}
