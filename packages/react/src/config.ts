import type { AuthSection, UiConfig } from "./types";

export const DEFAULT_SECTIONS: AuthSection[][] = [[{ type: "email" }], [{ type: "passkey" }]];

export type ResolvedUiConfig = UiConfig &
  Required<Pick<UiConfig, "illustrationStyle" | "sections" | "supportUrl" | "addPasskeyOnSignup">>;

/** Fills the spec's defaults (§2 "Default UI config"). */
export function resolveUiConfig(ui: UiConfig = {}): ResolvedUiConfig {
  return {
    ...ui,
    illustrationStyle: ui.illustrationStyle ?? "flat",
    sections: ui.sections ?? DEFAULT_SECTIONS,
    supportUrl: ui.supportUrl ?? "",
    addPasskeyOnSignup: ui.addPasskeyOnSignup ?? false,
  };
}
