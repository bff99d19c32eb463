// `@latchkey/react/locales`: the languages that ship with the modal, beside English (in the main entry).
export { de } from "./de";
export { en } from "./en";
export { es } from "./es";
export { fr } from "./fr";
export type { Locale, LocaleCode, TextOverrides, Texts } from "./types";
