/** The same small app in every consumer: a sign-in button, the modal, the user's address and a signature. */
export const APP_TSX = `import {
  AuthModal,
  LatchkeyProvider,
  useAuthModal,
  useSignMessage,
  useUser,
} from "@latchkey/react";
import { useState } from "react";

declare global {
  interface Window {
    LATCHKEY_CONFIG?: { serviceUrl: string; apiKey: string };
  }
}

function Wallet() {
  const { openAuthModal } = useAuthModal();
  const user = useUser();
  const { signMessageAsync } = useSignMessage();
  const [signature, setSignature] = useState("");
  if (!user) {
    return (
      <button type="button" onClick={() => openAuthModal()}>
        Sign in with Latchkey
      </button>
    );
  }
  return (
    <div>
      <code data-testid="address">{user.address}</code>
      <button type="button" onClick={async () => setSignature(await signMessageAsync({ message: "consumer" }))}>
        Sign
      </button>
      <code data-testid="signature">{signature}</code>
    </div>
  );
}

export default function App() {
  const config = typeof window === "undefined" ? undefined : window.LATCHKEY_CONFIG;
  return (
    <LatchkeyProvider config={{ serviceUrl: config?.serviceUrl ?? "http://localhost:8787", apiKey: config?.apiKey ?? "" }}>
      <h1>Consumer app</h1>
      <Wallet />
      <AuthModal />
    </LatchkeyProvider>
  );
}
`;

/** The React packages an app adds beside ours (our peers). */
export const PEERS = ["@tanstack/react-query@5", "@tanstack/react-form@1"];
