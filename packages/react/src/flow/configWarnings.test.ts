import { describe, expect, it } from "vitest";
import { EXTERNAL_WALLETS_MISSING_WARNING, externalWalletsWarning } from "./configWarnings";

describe("config warnings", () => {
  it("names the missing external wallets when the modal offers them", () => {
    const ui = { sections: [[{ type: "email" as const }], [{ type: "external_wallets" as const }]] };
    expect(externalWalletsWarning({ ui })).toBe(EXTERNAL_WALLETS_MISSING_WARNING);
    expect(EXTERNAL_WALLETS_MISSING_WARNING).toContain("@latchkey/core/external-wallets");
    expect(externalWalletsWarning({ ui, externalWallets: { load: async () => ({}) } })).toBeUndefined();
    expect(externalWalletsWarning({ ui: { sections: [[{ type: "email" }]] } })).toBeUndefined();
    expect(externalWalletsWarning({})).toBeUndefined();
  });
});
