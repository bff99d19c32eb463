// The host page's script in the browser tests: @latchkey/core as an app would bundle it.
import * as core from "@latchkey/core";
import { createManualClock } from "../helpers/clock";

declare global {
  interface Window {
    LATCHKEY_TEST: { baseUrl: string; apiKey: string; redirectUrl: string };
    lk: {
      core: typeof core;
      signer: core.Signer;
      ready: Promise<void>;
      events: string[];
      clock?: ReturnType<typeof createManualClock>;
      /** Run by a click on the page's #action button (a real user gesture: pop-ups may open). */
      onAction?: () => void;
      /** What the last action settled with (tests set it from onAction). */
      result?: unknown;
    };
  }
}

const params = new URL(location.href).searchParams;
const clock = params.has("manualClock") ? createManualClock() : undefined;
const keyHolder = params.get("holder") === "webcrypto" ? core.createWebCryptoKeyHolder() : undefined;
const enablePopupOauth = params.has("popupOauth");
const signer = core.createSigner({
  baseUrl: window.LATCHKEY_TEST.baseUrl,
  apiKey: window.LATCHKEY_TEST.apiKey,
  redirectUrl: window.LATCHKEY_TEST.redirectUrl,
  appId: "dev",
  ...(clock ? { clock } : {}),
  ...(keyHolder ? { keyHolder } : {}),
  ...(enablePopupOauth ? { enablePopupOauth } : {}),
});
const events: string[] = [];
for (const name of ["connected", "disconnected", "newUserSignup", "connectedPasskey"] as const)
  signer.on(name, () => events.push(name));
// OAuth events are recorded with a colon so the lists other tests compare stay as they were.
signer.on("connectedOauth", () => events.push("connectedOauth"));
signer.on("authenticating", (p) => {
  if (p.type === "oauth") events.push("authenticating:oauth");
});
signer.on("emailAuthLinkingRequired", (p) => events.push(`emailAuthLinkingRequired:${p.email}`));
const button = document.createElement("button");
button.id = "action";
button.textContent = "Sign in";
button.addEventListener("click", () => window.lk.onAction?.());
document.body.append(button);
window.lk = { core, signer, ready: signer.init(), events, ...(clock ? { clock } : {}) };
