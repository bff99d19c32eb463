import { describe, expect, it } from "vitest";
import { providerName } from "./providerName";

describe("provider names in the modal's texts", () => {
  it("displayName, the known name, else the id", () => {
    expect(providerName({ authProviderId: "google" })).toBe("Google");
    expect(providerName({ authProviderId: "auth0", displayName: "Acme SSO" })).toBe("Acme SSO");
    expect(providerName({ authProviderId: "custom" })).toBe("custom");
  });
});
