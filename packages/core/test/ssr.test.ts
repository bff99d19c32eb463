import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("SSR safety", () => {
  it("importing @latchkey/core in Node without a DOM has no side effects", () => {
    // A fresh Node process: no DOM, no test framework globals. It records every global, timer and
    // fetch the import could touch.
    const script = `
      const before = new Set(Object.getOwnPropertyNames(globalThis));
      let touched = [];
      const realSetTimeout = globalThis.setTimeout, realSetInterval = globalThis.setInterval;
      globalThis.setTimeout = (...a) => { touched.push("setTimeout"); return realSetTimeout(...a); };
      globalThis.setInterval = (...a) => { touched.push("setInterval"); return realSetInterval(...a); };
      globalThis.fetch = () => { touched.push("fetch"); throw new Error("no"); };
      const core = await import("@latchkey/core");
      const signer = core.createSigner({ baseUrl: "http://127.0.0.1:9", apiKey: "k" });
      // zod (pulled in by @latchkey/protocol's index) registers its config on globalThis: known, no DOM.
      const added = Object.getOwnPropertyNames(globalThis).filter((k) => !before.has(k) && k !== "fetch" && !k.startsWith("__zod_"));
      console.log(JSON.stringify({
        typeofWindow: typeof window, added, touched,
        status: signer.status, keyHolder: signer.keyHolder.kind, exports: Object.keys(core).length,
      }));
    `;
    const out = execFileSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    const result = JSON.parse(out.trim().split("\n").at(-1) as string);
    expect(result).toEqual({
      typeofWindow: "undefined",
      added: [],
      touched: [],
      status: "INITIALIZING",
      keyHolder: "memory",
      exports: expect.any(Number),
    });
  });

  it("freezes the public API", async () => {
    const core = await import("@latchkey/core");
    expect(Object.keys(core).sort()).toMatchInlineSnapshot(`
      [
        "AUTH_URL_PARAMS",
        "ActivityError",
        "DEFAULT_EXPORT_IFRAME_ID",
        "DEFAULT_IFRAME_ID",
        "DEFAULT_IMPORT_IFRAME_ID",
        "DEFAULT_SESSION_KEY",
        "ExternalWalletError",
        "ExternalWalletErrorMessages",
        "LatchkeyError",
        "MfaRequiredError",
        "OauthCancelledError",
        "OauthError",
        "OauthErrorMessages",
        "PasskeyCancelledError",
        "PasskeyError",
        "PasskeyErrorMessages",
        "ProviderRpcError",
        "ProviderRpcErrorCode",
        "SDK_VERSION",
        "SIGNUP_URL_PARAM",
        "SessionManager",
        "Signer",
        "SignerApiError",
        "SignerClient",
        "SignerError",
        "SignerErrorMessages",
        "SignerStatus",
        "SmartAccountError",
        "SmartAccountErrorMessages",
        "SolanaError",
        "SolanaErrorMessages",
        "addMfa",
        "addOauthProvider",
        "addPasskey",
        "announceEip1193Provider",
        "authenticate",
        "checkConnection",
        "completeApprovedActivities",
        "completeAuthWithBundle",
        "connectExternalWallet",
        "createEip1193Provider",
        "createGrant",
        "createIframeKeyHolder",
        "createMemoryKeyHolder",
        "createMemoryStorage",
        "createSigner",
        "createWebCryptoKeyHolder",
        "disconnect",
        "disconnectExternalWallet",
        "exportWallet",
        "getMfaFactors",
        "getPasskeyPrfSupport",
        "getPasskeyStatus",
        "getSmartAccountClient",
        "getWalletConnectors",
        "importWallet",
        "isOauthCancelled",
        "isPasskeyCancelled",
        "isUserRejected",
        "listAuditEvents",
        "listAuthMethods",
        "listGrants",
        "preparePopupOauth",
        "previewSigning",
        "protectWallet",
        "readAuthUrlParams",
        "removeEmail",
        "removeMfa",
        "removeOauthProvider",
        "removePasskey",
        "requireUser",
        "restoreWallet",
        "revokeGrant",
        "sendSolanaTransaction",
        "sendUserOperation",
        "sendVerificationCode",
        "setEmail",
        "setSignInPrompt",
        "setSigningConfirmation",
        "signInWithEthereum",
        "signRawMessage",
        "stepUpMethodsOf",
        "switchExternalWalletChain",
        "systemClock",
        "toSolanaSigner",
        "toViemAccount",
        "validateMultiFactors",
        "verifyMfa",
        "waitForActivity",
        "waitForUserOperationTransaction",
        "watchWalletConnectors",
        "withSigningConfirmation",
      ]
    `);
  });

  it("freezes the opt-in entries (each needs its optional peer): external wallets, WalletConnect, Solana", async () => {
    const entries = {
      "external-wallets": await import("@latchkey/core/external-wallets"),
      walletconnect: await import("@latchkey/core/walletconnect"),
      solana: await import("@latchkey/core/solana"),
    };
    expect(
      Object.fromEntries(Object.entries(entries).map(([k, m]) => [k, Object.keys(m).sort()])),
    ).toMatchInlineSnapshot(`
        {
          "external-wallets": [
            "externalWallets",
          ],
          "solana": [
            "registerSolanaWallet",
            "solana",
          ],
          "walletconnect": [
            "walletConnect",
          ],
        }
      `);
  });
});
