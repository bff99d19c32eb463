// The app of the bundle benchmark, as a new user writes it: the provider, the modal with the email,
// passkey and one social section, and a "Log in" button that opens it.
import { AuthModal, LatchkeyProvider, useAuthModal } from "@latchkey/react";
import { createRoot } from "react-dom/client";

function LogIn() {
  const { openAuthModal } = useAuthModal();
  return (
    <button type="button" onClick={() => openAuthModal()}>
      Log in
    </button>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider
    config={{
      serviceUrl: "https://auth.example.com",
      apiKey: "lk_bench",
      ui: {
        sections: [
          [{ type: "email" }],
          [{ type: "passkey" }],
          [{ type: "social", authProviderId: "google" }],
        ],
      },
    }}
  >
    <LogIn />
    <AuthModal />
  </LatchkeyProvider>,
);
