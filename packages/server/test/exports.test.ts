/**
 * The server package's public surface. A change here changes what an embedding app or the CLI can rely on:
 * update the snapshot on purpose (`npx vitest run -u packages/server/test/exports.test.ts`) and say why.
 */
import { describe, expect, it } from "vitest";
import * as devEntry from "../src/dev/index.js";
import * as server from "../src/index.js";

const surfaceOf = (entry: Record<string, unknown>) =>
  Object.keys(entry)
    .sort()
    .map((name) => `${name}: ${typeof entry[name]}`);

describe("@latchkey/server exports", () => {
  it(".", () => {
    const surface = surfaceOf(server);
    expect(surface).toMatchInlineSnapshot(`
      [
        "Keyring: function",
        "appConfigSchema: object",
        "createAppApiKey: function",
        "createService: function",
        "loadMasterKey: function",
        "migrate: function",
        "openDatabase: function",
        "parseMasterKey: function",
        "readConfigFile: function",
        "upsertApp: function",
      ]
    `);
  });

  // Everything the production entry has, dev mode's createService in place of its own, and the dev tooling.
  it("./dev", () => {
    expect(devEntry.createService).not.toBe(server.createService);
    expect(surfaceOf(devEntry)).toMatchInlineSnapshot(`
      [
        "DEV_APP_ID: string",
        "DEV_BLOCKED_ADDRESS: string",
        "DEV_OIDC_USERS: object",
        "DEV_POLICY_RULE_ID: string",
        "DEV_SIGNING_POLICY: object",
        "DEV_SOLANA_POLICY_ID: string",
        "Keyring: function",
        "appConfigSchema: object",
        "attachDevIdentityProvider: function",
        "checkDevDependencies: function",
        "createAppApiKey: function",
        "createService: function",
        "devPolicyId: function",
        "ensureDevApp: function",
        "loadMasterKey: function",
        "migrate: function",
        "openDatabase: function",
        "parseMasterKey: function",
        "readConfigFile: function",
        "startDevOidcProvider: function",
        "startStandIns: function",
        "upsertApp: function",
      ]
    `);
  });

  it("the production entry's createService refuses dev mode and names the dev entry", async () => {
    await expect(server.createService({ db: ":memory:", dev: true })).rejects.toThrow(
      /Dev mode .* is in @latchkey\/server\/dev/,
    );
  });
});
