import type { SignerBase } from "./types";

/**
 * Sets how this signer asks the user to sign in when a dapp connects while nobody is: wagmi's `connect`,
 * RainbowKit's wallet, an EIP-1193 `eth_requestAccounts` whose provider got no `requestAccounts` option.
 * The prompt resolves once someone is signed in and rejects when the user gives up. `@latchkey/react`'s
 * `<LatchkeyProvider signer={signer}>` sets one (its modal) while it is mounted; the returned function
 * takes this one away again.
 *
 * @example
 * const off = setSignInPrompt(signer, () => openMyOwnSignInPage());
 */
export function setSignInPrompt(signer: SignerBase, prompt: () => Promise<void>): () => void {
  const internals = signer._internal;
  internals.signInPrompt = prompt;
  return () => {
    if (internals.signInPrompt === prompt) delete internals.signInPrompt;
  };
}
