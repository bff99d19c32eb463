import { describe, expect, it } from "vitest";
import { enTexts } from "../texts/en";
import { validateEmail } from "./validateEmail";

describe("the email field (spec §5)", () => {
  it("'Must provide a valid email.' unless valid; empty is allowed on mount and blur", () => {
    const message = enTexts.invalidEmail;
    expect(validateEmail("ada@example.com", message)).toBeUndefined();
    expect(validateEmail("ada@example", message)).toBe("Must provide a valid email.");
    expect(validateEmail("", message)).toBe("Must provide a valid email.");
    expect(validateEmail("", message, true)).toBeUndefined();
  });
});
