import { describe, expect, it } from "vitest";
import { validateEmail } from "./validateEmail";

describe("the email field (spec §5)", () => {
  it("'Must provide a valid email.' unless valid; empty is allowed on mount and blur", () => {
    expect(validateEmail("ada@example.com")).toBeUndefined();
    expect(validateEmail("ada@example")).toBe("Must provide a valid email.");
    expect(validateEmail("")).toBe("Must provide a valid email.");
    expect(validateEmail("", true)).toBeUndefined();
  });
});
