import { en } from "./en";
import type { Locale, LocaleCode, TextOverrides, Texts } from "./types";

/** The locale's texts with the app's overrides on top; `errors` merge code by code. */
export function mergeTexts(base: Texts, overrides: TextOverrides | undefined): Texts {
  if (!overrides) return base;
  const { errors, ...rest } = overrides;
  const texts = { ...base } as Record<string, unknown>;
  // `undefined` never replaces a text (an override object built from optional fields).
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) texts[key] = value;
  return { ...(texts as unknown as Texts), errors: { ...base.errors, ...errors } };
}

/**
 * A shipped locale by its code, loaded on demand (each is its own chunk, so an app pays only for the
 * language it uses). English is in the main bundle.
 */
export async function loadLocale(code: LocaleCode): Promise<Locale> {
  switch (code) {
    case "de":
      return (await import("./de")).de;
    case "fr":
      return (await import("./fr")).fr;
    case "es":
      return (await import("./es")).es;
    default:
      return en;
  }
}
