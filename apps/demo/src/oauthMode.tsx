import "./account.css";
import { useSyncExternalStore } from "react";

/** How the demo's social buttons sign in: a pop-up (default) or a full-page redirect. Kept per browser. */
export type OauthMode = "popup" | "redirect";

const KEY = "latchkey-demo:oauth-mode";
const listeners = new Set<() => void>();

function read(): OauthMode {
  return localStorage.getItem(KEY) === "redirect" ? "redirect" : "popup";
}

export function setOauthMode(mode: OauthMode): void {
  localStorage.setItem(KEY, mode);
  for (const l of listeners) l();
}

export function useOauthMode(): OauthMode {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
    () => "popup",
  );
}

/**
 * The dev service's providers: its local OpenID Connect provider stands in for Google and Auth0, and local
 * stand-ins that behave as each real one does for Apple, Facebook, Twitch, GitHub and Discord.
 */
export const DEMO_PROVIDERS = [
  { authProviderId: "google" },
  { authProviderId: "apple" },
  { authProviderId: "facebook" },
  { authProviderId: "twitch" },
  { authProviderId: "github" },
  { authProviderId: "discord" },
  { authProviderId: "auth0", displayName: "Auth0" },
] as const;

/** Pick pop-up or redirect for the modal's social buttons. */
export function OauthModeSwitch() {
  const mode = useOauthMode();
  return (
    <fieldset className="switch" aria-label="Social sign-in opens">
      <legend className="muted">Social sign-in opens in a</legend>
      {(["popup", "redirect"] as const).map((m) => (
        <label key={m} className={mode === m ? "on" : undefined}>
          <input type="radio" name="oauth-mode" checked={mode === m} onChange={() => setOauthMode(m)} />
          {m === "popup" ? "Pop-up" : "Redirect"}
        </label>
      ))}
    </fieldset>
  );
}
