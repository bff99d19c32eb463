import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("server rendering", () => {
  it("renders the provider, the modal, the card and the hooks in Node without touching window", () => {
    // A fresh Node process with no DOM: any access to window or document would throw.
    const script = `
      const { createElement: h } = await import("react");
      const { renderToString } = await import("react-dom/server");
      const lk = await import("@latchkey/react");
      function Status() {
        const { status } = lk.useSignerStatus();
        const user = lk.useUser();
        const { isOpen } = lk.useAuthModal();
        lk.useAuthError();
        lk.useSignMessage();
        lk.useSolanaTransaction();
        return h("p", null, status + " " + String(user) + " " + isOpen);
      }
      const html = renderToString(
        h(lk.LatchkeyProvider, { config: { serviceUrl: "http://127.0.0.1:9", apiKey: "k" } },
          h(Status), h(lk.AuthModal), h(lk.AuthCard)),
      );
      console.log(JSON.stringify({ typeofWindow: typeof window, html }));
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
    expect(result.typeofWindow).toBe("undefined");
    expect(result.html).toContain("INITIALIZING null false");
    // The card renders its first step on the server; the modal renders nothing until opened.
    expect(result.html).toContain("Sign in");
    expect(result.html).toContain("By signing in, you agree to the ");
    expect(result.html).toContain("Terms of Service");
    expect(result.html).not.toContain('role="dialog"');
  });

  it("renders in the locale given as an object (no English first), with the app's overrides and lang", () => {
    const script = `
      const { createElement: h } = await import("react");
      const { renderToString } = await import("react-dom/server");
      const lk = await import("@latchkey/react");
      const { de, fr } = await import("@latchkey/react/locales");
      const config = { serviceUrl: "http://127.0.0.1:9", apiKey: "k", ui: { termsUrl: "https://example.com/terms" } };
      const german = renderToString(h(lk.LatchkeyProvider, { config, locale: de }, h(lk.AuthCard)));
      const french = renderToString(
        h(lk.LatchkeyProvider, { config, locale: fr, texts: { signIn: "Connexion" } }, h(lk.AuthCard)),
      );
      // A code is loaded after mount: the server renders English.
      const byCode = renderToString(h(lk.LatchkeyProvider, { config, locale: "es" }, h(lk.AuthCard)));
      console.log(JSON.stringify({ german, french, byCode }));
    `;
    const out = execFileSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, encoding: "utf8" },
    );
    const { german, french, byCode } = JSON.parse(out.trim().split("\n").at(-1) as string);
    expect(german).toContain('lang="de"');
    expect(german).toContain("Anmelden");
    expect(german).toContain("Mit der Anmeldung stimmst du den ");
    expect(german).toContain(">Nutzungsbedingungen</a> zu");
    expect(german).toContain('placeholder="E-Mail"');
    expect(german).toContain("Geschützt durch");
    expect(german).not.toContain("Sign in");
    expect(french).toContain('lang="fr"');
    expect(french).toContain("Connexion");
    expect(french).not.toContain("Se connecter");
    expect(french).toContain("Conditions d’utilisation");
    expect(byCode).toContain('lang="en"');
    expect(byCode).toContain("Sign in");
  });

  it("freezes the public API", async () => {
    const lk = await import("@latchkey/react");
    expect(Object.keys(lk).sort()).toMatchInlineSnapshot(`
      [
        "AuthCard",
        "AuthModal",
        "DEFAULT_SECTIONS",
        "ExportAccount",
        "GrantDeclinedError",
        "ImportWallet",
        "LatchkeyProvider",
        "authenticateMutationOptions",
        "en",
        "exportWalletMutationOptions",
        "importWalletMutationOptions",
        "logoutMutationOptions",
        "resolveUiConfig",
        "signMessageMutationOptions",
        "signTypedDataMutationOptions",
        "submitImportMutationOptions",
        "switchExternalWalletChainMutationOptions",
        "useAddOauthProvider",
        "useAddPasskey",
        "useAuditEvents",
        "useAuthError",
        "useAuthMethods",
        "useAuthModal",
        "useAuthenticate",
        "useExportAccount",
        "useExternalWallet",
        "useGrantConsent",
        "useGrants",
        "useImportWallet",
        "useLogout",
        "useMfa",
        "useRemoveEmail",
        "useRemoveOauthProvider",
        "useRemovePasskey",
        "useRevokeGrant",
        "useSendUserOperation",
        "useSetEmail",
        "useSignMessage",
        "useSignTypedData",
        "useSigner",
        "useSignerStatus",
        "useSmartAccountClient",
        "useSolanaTransaction",
        "useSwitchExternalWalletChain",
        "useUser",
        "useWaitForUserOperationTransaction",
      ]
    `);
  });
});
