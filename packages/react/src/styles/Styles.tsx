import { version } from "react";
import { baseCss } from "./base";
import { methodCss } from "./methods";
import { walletCss } from "./wallets";

// React 19 hoists one copy of each stylesheet into <head> however often it renders (also on the server).
// React 18 has no resource hoisting: there the sheet renders in place, beside what it styles, which works
// the same in the browser and in server-rendered HTML (a second copy of the same rules changes nothing).
const HOISTS_STYLES = Number.parseInt(version, 10) >= 19;

/** One stylesheet, hoisted once (React 19) or rendered in place (React 18). */
export function Sheet({ name, css }: { name: string; css: string }) {
  return HOISTS_STYLES ? (
    <style href={name} precedence="default">
      {css}
    </style>
  ) : (
    <style data-latchkey={name}>{css}</style>
  );
}

/** The modal's base stylesheet; `Root` renders it. */
export function BaseStyles() {
  return <Sheet name="latchkey-modal" css={baseCss} />;
}

/** The passkey, social and connection-error styles; the views that use them render it. */
export function MethodStyles() {
  return <Sheet name="latchkey-methods" css={methodCss} />;
}

/** The wallet list, the wallet badge and the WalletConnect QR code; the wallet views render it. */
export function WalletStyles() {
  return <Sheet name="latchkey-wallets" css={walletCss} />;
}
