import { announceEip1193Provider, createEip1193Provider } from "@latchkey/core";
import { useSigner, useUser } from "@latchkey/react";
import { useEffect } from "react";

/**
 * Once a user is signed in, the embedded wallet is announced as an EIP-1193 provider over EIP-6963, so
 * any dapp tooling on the page (wagmi, RainbowKit, mipd) discovers "Latchkey" beside injected wallets.
 */
export function AnnounceWallet() {
  const signer = useSigner();
  const signedIn = Boolean(useUser());
  useEffect(() => {
    if (!signedIn) return;
    return announceEip1193Provider(createEip1193Provider(signer));
  }, [signer, signedIn]);
  return null;
}
