import { createHash } from "node:crypto";
import type { OauthPopupMessage } from "@latchkey/protocol";

/** The page a pop-up lands on: it posts the result to the opener's exact origin and closes. */
export function popupPage(origin: string, message: OauthPopupMessage): { html: string; scriptHash: string } {
  const script = `(function(){var m=${JSON.stringify(message).replace(/</g, "\\u003c")};try{if(window.opener){window.opener.postMessage(m,${JSON.stringify(origin)});}}finally{window.close();}})();`;
  const scriptHash = createHash("sha256").update(script).digest("base64");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head><body style="font-family:system-ui,sans-serif;padding:32px;color:#1f2330"><p>${message.status === "ERROR" ? "Sign-in failed. You can close this window." : "Signed in. You can close this window."}</p><script>${script}</script></body></html>`;
  return { html, scriptHash };
}

export function messagePage(title: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family:system-ui,sans-serif;padding:32px;color:#1f2330"><h1 style="font-size:20px">${esc(title)}</h1><p>${esc(message)}</p></body></html>`;
}
