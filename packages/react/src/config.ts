import type { AuthSection, UiConfig } from "./types";

/** The modal's sign-in methods unless `ui.sections` says otherwise: email, then passkey. */
export const DEFAULT_SECTIONS: AuthSection[][] = [[{ type: "email" }], [{ type: "passkey" }]];

/** The UI config with every default filled in. */
export type ResolvedUiConfig = UiConfig &
  Required<Pick<UiConfig, "illustrationStyle" | "sections" | "supportUrl" | "addPasskeyOnSignup" | "mode">>;

/**
 * Fills the spec's defaults (§2 "Default UI config").
 *
 * @example
 * const ui = resolveUiConfig({ theme: { mode: "dark" } }); // every other option at its default
 */
export function resolveUiConfig(ui: UiConfig = {}): ResolvedUiConfig {
  return {
    ...ui,
    illustrationStyle: ui.illustrationStyle ?? "flat",
    sections: ui.sections ?? DEFAULT_SECTIONS,
    supportUrl: ui.supportUrl ?? "",
    addPasskeyOnSignup: ui.addPasskeyOnSignup ?? false,
    mode: ui.mode ?? "modal",
  };
}
