import { useLatchkeyContext } from "../context";
import type { Texts } from "./types";

/** The modal's texts: the provider's locale with the app's overrides. */
export function useTexts(): Texts {
  return useLatchkeyContext().texts;
}
