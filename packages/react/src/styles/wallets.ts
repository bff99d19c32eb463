/** Styles of the wallet list, the wallet badge and the WalletConnect QR code (scoped under `.lk-root`). */
export const walletCss = `
.lk-wallets{list-style:none;margin:16px 0 0;padding:0;display:flex;flex-direction:column;gap:8px;width:100%}
.lk-wallets .lk-btn{justify-content:flex-start;gap:12px;padding:0 14px}
.lk-wallet-icon{width:28px;height:28px;flex:none;border-radius:8px;object-fit:contain;display:inline-flex;align-items:center;justify-content:center}
.lk-wallet-icon svg{width:28px;height:28px}
.lk-provider-badge .lk-wallet-icon,.lk-provider-badge .lk-wallet-icon svg{width:40px;height:40px}
.lk-empty{margin:24px 0 8px;color:var(--lk-muted);font-size:14px}
.lk-qr{margin-top:16px;padding:12px;border-radius:calc(var(--lk-radius)*.75);background:#fff;border:1px solid var(--lk-border);line-height:0}
.lk-qr svg{width:200px;height:200px;display:block}
.lk-qr-placeholder{width:200px;height:200px;display:flex;align-items:center;justify-content:center}
`;
