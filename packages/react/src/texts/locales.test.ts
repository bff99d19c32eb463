import { describe, expect, it } from "vitest";
import { de, en, es, fr } from "./locales";
import { mergeTexts } from "./resolve";

describe("the shipped locales", () => {
  const english = en.texts as unknown as Record<string, unknown>;
  it.each([de, fr, es])(
    "$code is complete: every English text, translated, with the same parameters",
    (locale) => {
      const texts = locale.texts as unknown as Record<string, unknown>;
      expect(Object.keys(texts).sort()).toEqual(Object.keys(english).sort());
      const untranslated = Object.keys(english).filter(
        (key) =>
          key !== "brand" &&
          key !== "errors" &&
          typeof english[key] === "string" &&
          english[key] !== "" &&
          texts[key] === english[key],
      );
      expect(untranslated).toEqual([]);
      for (const [key, value] of Object.entries(texts)) {
        if (typeof value === "function") expect(String(value("«X»")), key).toContain("«X»");
        else if (key !== "errors") expect(typeof value, key).toBe("string");
      }
      expect(Object.keys(locale.texts.errors).length).toBeGreaterThan(10);
    },
  );

  it("English is the spec's, with no code texts (a service error shows its own message)", () => {
    expect(en.texts.signIn).toBe("Sign in");
    expect(en.texts.otpDigit(2)).toBe("Digit 2 of 6");
    expect(en.texts.errors).toEqual({});
  });

  it("overrides replace single texts, merge error texts code by code, and ignore undefined", () => {
    const merged = mergeTexts(de.texts, { signIn: "Los geht's", errors: { USER_EXISTS: "Gibt es schon" } });
    expect(merged.signIn).toBe("Los geht's");
    expect(merged.or).toBe("oder");
    expect(merged.errors.USER_EXISTS).toBe("Gibt es schon");
    expect(merged.errors.RATE_LIMITED).toBe(de.texts.errors.RATE_LIMITED);
    expect(mergeTexts(de.texts, { signIn: undefined }).signIn).toBe("Anmelden");
  });
});
