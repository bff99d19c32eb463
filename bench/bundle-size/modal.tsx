// The minimal host app of the bundle benchmark: the provider, and the modal opened on load with the
// email and passkey sections.
import { AuthModal, LatchkeyProvider, useAuthModal } from "@latchkey/react";
import { useEffect } from "react";
import { createRoot } from "react-dom/client";

function OpenOnLoad() {
  const { openAuthModal } = useAuthModal();
  useEffect(() => openAuthModal(), [openAuthModal]);
  return null;
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <LatchkeyProvider
    config={{
      serviceUrl: "https://auth.example.com",
      apiKey: "lk_bench",
      ui: { sections: [[{ type: "email" }], [{ type: "passkey" }]] },
    }}
  >
    <OpenOnLoad />
    <AuthModal />
  </LatchkeyProvider>,
);
