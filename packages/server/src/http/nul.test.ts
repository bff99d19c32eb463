import { describe, expect, it } from "vitest";
import { ApiError } from "../errors";
import { assertNoNul } from "./nul";

describe("assertNoNul (F3)", () => {
  it("finds a NUL in any string or key, however deep", () => {
    const cases: unknown[] = [
      "a\u0000",
      { a: "\u0000" },
      { a: [{ b: ["x", "y\u0000z"] }] },
      { "k\u0000": 1 },
    ];
    for (const c of cases) {
      let error: unknown;
      try {
        assertNoNul(c);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(c)).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("INVALID_CHARACTERS");
      expect((error as ApiError).status).toBe(400);
    }
  });

  it("lets every other text through (line breaks in a message to sign are fine)", () => {
    expect(() => assertNoNul({ a: "line\nbreak\ttab", b: [1, true, null, "é"] })).not.toThrow();
  });
});
