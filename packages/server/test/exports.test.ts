/**
 * The server package's public surface. A change here changes what an embedding app or the CLI can rely on:
 * update the snapshot on purpose (`npx vitest run -u packages/server/test/exports.test.ts`) and say why.
 */
import { describe, expect, it } from "vitest";
import * as server from "../src/index.js";

describe("@latchkey/server exports", () => {
  it(".", () => {
    const surface = Object.keys(server)
      .sort()
      .map((name) => `${name}: ${typeof (server as Record<string, unknown>)[name]}`);
    expect(surface).toMatchInlineSnapshot(`
      [
        "DEV_APP_ID: string",
        "DEV_OIDC_USERS: object",
        "Keyring: function",
        "appConfigSchema: object",
        "attachDevIdentityProvider: function",
        "createAppApiKey: function",
        "createService: function",
        "loadMasterKey: function",
        "migrate: function",
        "openDatabase: function",
        "parseMasterKey: function",
        "readConfigFile: function",
        "startDevOidcProvider: function",
        "upsertApp: function",
      ]
    `);
  });
});
