/** Styles of the passkey, social and connection-error views (scoped under `.lk-root`, as base.ts). */
export const methodCss = `
.lk-social-row{display:grid;grid-template-columns:repeat(auto-fit,minmax(0,1fr));gap:8px}
.lk-social-row .lk-btn{padding:0}
.lk-logo{width:20px;height:20px;flex:none;display:inline-flex;align-items:center;justify-content:center}
.lk-logo svg,.lk-logo img{width:20px;height:20px;object-fit:contain}
.lk-logo-dark{display:none}
.lk-root[data-theme=dark] .lk-logo-light.lk-has-dark{display:none}
.lk-root[data-theme=dark] .lk-logo-dark{display:inline-flex}
@media (prefers-color-scheme:dark){.lk-root[data-theme=system] .lk-logo-light.lk-has-dark{display:none}.lk-root[data-theme=system] .lk-logo-dark{display:inline-flex}}
.lk-mono{color:var(--lk-fg)}
.lk-subtle{display:flex;justify-content:center;gap:4px;margin-top:2px;font-size:13px;color:var(--lk-muted)}
.lk-benefits{list-style:none;margin:16px 0 0;padding:0;display:grid;grid-template-columns:1fr 1fr;gap:8px;width:100%;text-align:left}
.lk-benefits li{display:flex;flex-direction:column;gap:4px;padding:12px;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-surface)}
.lk-benefits svg{color:var(--lk-accent)}
.lk-benefits strong{display:block;font-weight:650;font-size:13px}
.lk-benefits span{color:var(--lk-muted);font-size:12px;line-height:1.4}
.lk-grant{margin:14px 0 0;width:100%;display:grid;gap:6px;text-align:left;font-size:13px}
.lk-grant div{display:flex;justify-content:space-between;gap:12px;padding:8px 12px;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-surface)}
.lk-grant dt{color:var(--lk-muted);white-space:nowrap}
.lk-grant dd{margin:0;font-weight:600;text-align:right;overflow-wrap:anywhere}
.lk-grant-description{font-weight:600}
.lk-grant-hint{font-size:12px;margin-top:10px}
.lk-actions{display:flex;flex-direction:column;gap:8px;width:100%;margin-top:18px}
.lk-btn-ghost{height:38px;background:transparent;color:var(--lk-muted);border-color:transparent}
.lk-btn-ghost:hover:not(:disabled){color:var(--lk-fg);background:var(--lk-surface)}
.lk-inline-error{margin:14px 0 0;width:100%;padding:10px 12px;border-radius:calc(var(--lk-radius)*.625);background:color-mix(in srgb,var(--lk-danger) 10%,var(--lk-bg));color:var(--lk-danger);font-size:13px;font-weight:600}
.lk-error-badge{display:flex;justify-content:center;color:var(--lk-danger)}
.lk-error-badge svg{width:72px;height:72px}
.lk-provider-badge{display:flex;align-items:center;justify-content:center;width:72px;height:72px;border-radius:20px;border:1px solid var(--lk-border);background:var(--lk-surface)}
.lk-provider-badge .lk-logo,.lk-provider-badge .lk-logo svg,.lk-provider-badge .lk-logo img{width:36px;height:36px}
.lk-pulse{animation:lk-pulse 1.6s ease-in-out infinite}
@keyframes lk-pulse{0%,100%{transform:scale(1);opacity:1}50%{transform:scale(.94);opacity:.75}}
.lk-success-check{color:var(--lk-success)}
.lk-progress{width:100%;height:3px;margin-top:20px;border-radius:3px;background:var(--lk-border);overflow:hidden}
.lk-progress div{height:100%;background:var(--lk-success);transform-origin:left;animation:lk-progress linear forwards}
@keyframes lk-progress{from{transform:scaleX(0)}to{transform:scaleX(1)}}
`;
