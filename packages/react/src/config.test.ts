import { describe, expect, it } from "vitest";
import { resolveUiConfig } from "./config";

describe("UI config", () => {
  it("default UI config (spec §2)", () => {
    expect(resolveUiConfig()).toEqual({
      illustrationStyle: "flat",
      sections: [[{ type: "email" }], [{ type: "passkey" }]],
      supportUrl: "",
      addPasskeyOnSignup: false,
      mode: "modal",
    });
  });
});
