/**
 * The modal's stylesheet, scoped under `.lk-root` and themed by custom properties, so the host needs no
 * CSS framework. React 19 hoists it into <head> once (also when rendered on the server).
 */
export const baseCss = `
.lk-root{--lk-accent:#4f46e5;--lk-accent-fg:#fff;--lk-radius:16px;--lk-font:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
--lk-bg:#fff;--lk-fg:#0f172a;--lk-muted:#64748b;--lk-border:#e2e8f0;--lk-surface:#f8fafc;--lk-danger:#dc2626;--lk-success:#16a34a;--lk-shadow:0 24px 64px -12px rgba(15,23,42,.35),0 0 0 1px rgba(15,23,42,.06);
font-family:var(--lk-font);color:var(--lk-fg);font-size:14px;line-height:1.45;-webkit-font-smoothing:antialiased}
.lk-root[data-theme=dark]{--lk-bg:#111827;--lk-fg:#f1f5f9;--lk-muted:#94a3b8;--lk-border:#273244;--lk-surface:#1a2333;--lk-danger:#f87171;--lk-success:#4ade80;--lk-shadow:0 24px 64px -12px rgba(0,0,0,.7),0 0 0 1px rgba(255,255,255,.06)}
@media (prefers-color-scheme:dark){.lk-root[data-theme=system]{--lk-bg:#111827;--lk-fg:#f1f5f9;--lk-muted:#94a3b8;--lk-border:#273244;--lk-surface:#1a2333;--lk-danger:#f87171;--lk-success:#4ade80;--lk-shadow:0 24px 64px -12px rgba(0,0,0,.7),0 0 0 1px rgba(255,255,255,.06)}}
.lk-root *,.lk-root *::before,.lk-root *::after{box-sizing:border-box}
.lk-overlay{position:fixed;inset:0;z-index:var(--lk-z-index,2147483647);display:flex;align-items:flex-end;justify-content:center;padding:12px;background:rgba(15,23,42,.5);backdrop-filter:var(--lk-backdrop-filter,none);animation:lk-fade .15s ease-out}
@media (min-width:768px){.lk-overlay{align-items:center}}
.lk-card{position:relative;width:100%;background:var(--lk-bg);color:var(--lk-fg);border-radius:var(--lk-radius);box-shadow:var(--lk-shadow);overflow:hidden;outline:none}
.lk-overlay .lk-card{animation:lk-pop .18s cubic-bezier(.2,.9,.3,1.2)}
@media (min-width:768px){.lk-card{width:368px}}
.lk-header{display:grid;grid-template-columns:40px 1fr 40px;align-items:center;min-height:52px;padding:8px 8px 0}
.lk-header-center{display:flex;justify-content:center;align-items:center;min-height:32px;font-weight:600}
.lk-icon-btn{display:inline-flex;align-items:center;justify-content:center;width:32px;height:32px;border-radius:999px;border:0;background:transparent;color:var(--lk-muted);cursor:pointer;transition:background .15s,color .15s}
.lk-icon-btn:hover{background:var(--lk-surface);color:var(--lk-fg)}
.lk-content{max-height:60vh;overflow-y:auto;padding:8px 24px 24px}
.lk-heading{margin:4px 0 20px;font-size:20px;font-weight:650;letter-spacing:-.01em;text-align:center}
.lk-title{margin:16px 0 6px;font-size:18px;font-weight:650;text-align:center;letter-spacing:-.01em}
.lk-text{margin:0;color:var(--lk-muted);text-align:center}
.lk-strong{color:var(--lk-fg);font-weight:600;overflow-wrap:anywhere}
.lk-email{display:block;margin-top:2px}
.lk-stack{display:flex;flex-direction:column;gap:12px}
.lk-center{display:flex;flex-direction:column;align-items:center;text-align:center}
.lk-field{position:relative}
.lk-input{width:100%;height:44px;padding:0 14px;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-bg);color:var(--lk-fg);font:inherit;font-size:15px;transition:border-color .15s,box-shadow .15s;outline:none}
.lk-input::placeholder{color:var(--lk-muted)}
.lk-input:focus{border-color:var(--lk-accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--lk-accent) 22%,transparent)}
.lk-input[aria-invalid=true]{border-color:var(--lk-danger)}
.lk-field .lk-input.lk-has-arrow{padding-right:48px}
.lk-arrow{position:absolute;right:6px;top:6px;width:32px;height:32px;border-radius:calc(var(--lk-radius)*.5);border:0;background:var(--lk-accent);color:var(--lk-accent-fg);display:flex;align-items:center;justify-content:center;cursor:pointer}
.lk-arrow:disabled{opacity:.4;cursor:not-allowed}
.lk-field-error{margin:6px 2px 0;color:var(--lk-danger);font-size:13px}
.lk-btn{display:inline-flex;align-items:center;justify-content:center;gap:8px;width:100%;height:44px;padding:0 16px;border-radius:calc(var(--lk-radius)*.625);border:1px solid transparent;font:inherit;font-size:15px;font-weight:600;cursor:pointer;transition:filter .15s,background .15s,opacity .15s,transform .05s}
.lk-btn:active:not(:disabled){transform:translateY(1px)}
.lk-btn-primary{background:var(--lk-accent);color:var(--lk-accent-fg)}
.lk-btn-primary:hover:not(:disabled){filter:brightness(1.08)}
.lk-btn-secondary{background:var(--lk-surface);color:var(--lk-fg);border-color:var(--lk-border)}
.lk-btn-secondary:hover:not(:disabled){background:color-mix(in srgb,var(--lk-surface) 70%,var(--lk-border))}
.lk-btn:disabled{opacity:.45;cursor:not-allowed}
.lk-root button:focus-visible,.lk-root a:focus-visible{outline:2px solid var(--lk-accent);outline-offset:2px}
.lk-link{background:none;border:0;padding:0;font:inherit;color:var(--lk-accent);font-weight:600;cursor:pointer;text-decoration:none}
.lk-link:hover:not(:disabled){text-decoration:underline}
.lk-link:disabled{opacity:.5;cursor:not-allowed}
.lk-divider{display:flex;align-items:center;gap:12px;margin:18px 0;color:var(--lk-muted);font-size:12px;text-transform:lowercase}
.lk-divider::before,.lk-divider::after{content:"";flex:1;height:1px;background:var(--lk-border)}
.lk-banner{display:flex;gap:10px;margin:0 0 16px;padding:12px;border-radius:calc(var(--lk-radius)*.625);background:color-mix(in srgb,var(--lk-danger) 10%,var(--lk-bg));color:var(--lk-fg);border:1px solid color-mix(in srgb,var(--lk-danger) 30%,transparent)}
.lk-banner svg{flex:none;color:var(--lk-danger);margin-top:1px}
.lk-banner-title{font-weight:650}
.lk-banner-body{color:var(--lk-muted);font-size:13px}
.lk-otp{display:flex;justify-content:center;gap:8px;margin:20px 0 4px}
.lk-otp input{width:44px;height:52px;padding:0;text-align:center;font-size:22px;font-weight:600;font-variant-numeric:tabular-nums;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-bg);color:var(--lk-fg);outline:none;transition:border-color .15s,box-shadow .15s}
.lk-otp input:focus{border-color:var(--lk-accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--lk-accent) 22%,transparent)}
.lk-otp[data-error=true] input{border-color:var(--lk-danger)}
.lk-otp[data-status=success] input{border-color:var(--lk-success)}
.lk-otp input:disabled{opacity:.6}
.lk-status{min-height:22px;margin-top:10px;text-align:center;font-size:13px;color:var(--lk-muted)}
.lk-status[data-kind=error]{color:var(--lk-danger)}
.lk-status[data-kind=success]{color:var(--lk-success);font-weight:600}
.lk-footer{padding:14px 24px 16px;border-top:1px solid var(--lk-border);text-align:center;font-size:12px;color:var(--lk-muted);display:flex;flex-direction:column;gap:10px;align-items:center}
.lk-footer a{color:var(--lk-fg);text-decoration:underline;text-underline-offset:2px}
.lk-badge{display:inline-flex;align-items:center;gap:6px;font-size:11px;letter-spacing:.02em;color:var(--lk-muted)}
.lk-badge strong{color:var(--lk-fg);font-weight:650}
.lk-illustration{display:flex;justify-content:center;color:var(--lk-accent)}
.lk-illustration svg{width:72px;height:72px}
.lk-float{animation:lk-float 2.4s ease-in-out infinite}
.lk-spinner{width:40px;height:40px;border-radius:50%;border:3px solid color-mix(in srgb,var(--lk-accent) 20%,transparent);border-top-color:var(--lk-accent);animation:lk-spin .8s linear infinite;margin:24px auto 8px}
.lk-btn .lk-spinner{width:16px;height:16px;border-width:2px;margin:0;border-color:currentColor;border-top-color:transparent}
.lk-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@keyframes lk-spin{to{transform:rotate(360deg)}}
@keyframes lk-float{0%,100%{transform:translateY(0)}50%{transform:translateY(-6px)}}
@keyframes lk-fade{from{opacity:0}}
@keyframes lk-pop{from{opacity:0;transform:translateY(8px) scale(.98)}}
@media (prefers-reduced-motion:reduce){.lk-root *{animation:none!important;transition:none!important}}
`;
