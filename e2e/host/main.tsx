// The e2e host page: a bare app that embeds the modal with the UI config given in the query string
// (`?ui=<JSON>&app=ml&card=1&locale=de&texts=<JSON>`), so each test can show what an option changes. `card=only` renders the
// inline AuthCard without an AuthModal, as an app that embeds only the card would.
import {
  AuthCard,
  AuthModal,
  LatchkeyProvider,
  type LocaleCode,
  type TextOverrides,
  type UiConfig,
  useAuthModal,
  useLogout,
  useSigner,
  useSignerStatus,
  useSignMessage,
  useUser,
} from "@latchkey/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";

declare global {
  interface Window {
    LK_E2E: { serviceUrl: string; devApiKey: string; magicLink: { id: string; apiKey: string } };
    lkSuccess: number;
    /** Analytics events the modal reported (`ui.onEvent`). */
    lkEvents: string[];
    /** The provider's signer, for tests that set up the account (TOTP, passkeys) by hand. */
    lkSigner: ReturnType<typeof useSigner>;
  }
}

const params = new URL(location.href).searchParams;
const ui = JSON.parse(params.get("ui") ?? "{}") as UiConfig;
const magic = params.get("app") === "ml";
window.lkSuccess = 0;
window.lkEvents = [];

function Host() {
  const { openAuthModal, isOpen } = useAuthModal();
  window.lkSigner = useSigner();
  const { status } = useSignerStatus();
  const user = useUser();
  const { logout } = useLogout();
  const { signMessageAsync } = useSignMessage();
  const [signature, setSignature] = useState("");
  return (
    <main>
      <div data-testid="status">{status}</div>
      <div data-testid="modal-open">{String(isOpen)}</div>
      {user && <code data-testid="address">{user.address}</code>}
      <button type="button" onClick={() => openAuthModal()}>
        Open sign-in
      </button>
      {user && (
        <>
          <button
            type="button"
            onClick={async () => setSignature(await signMessageAsync({ message: "e2e" }))}
          >
            Sign
          </button>
          <code data-testid="signature">{signature}</code>
          <button type="button" onClick={() => logout()}>
            Log out
          </button>
        </>
      )}
      {params.has("card") && !user && <AuthCard />}
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider
    config={{
      // `?service=` and `?key=` point the page at a wrong service or key (first-contact tests).
      serviceUrl: params.get("service") ?? window.LK_E2E.serviceUrl,
      apiKey: params.get("key") ?? (magic ? window.LK_E2E.magicLink.apiKey : window.LK_E2E.devApiKey),
      appId: magic ? window.LK_E2E.magicLink.id : "dev",
      // The magic link comes back to this page with the same app.
      redirectUrl: magic ? `${location.origin}/?app=ml` : `${location.origin}/`,
      ui: {
        ...ui,
        onAuthSuccess: () => {
          window.lkSuccess++;
        },
        onEvent: ({ name }) => {
          window.lkEvents.push(name);
        },
      },
    }}
    // `?locale=de` and `?texts=<JSON>`: the modal's language and text overrides.
    locale={(params.get("locale") as LocaleCode | null) ?? undefined}
    texts={JSON.parse(params.get("texts") ?? "{}") as TextOverrides}
  >
    <Host />
    {params.get("card") !== "only" && <AuthModal />}
  </LatchkeyProvider>,
);
