import type { Address } from "viem";
import { requireUser } from "../../signer/guards";
import type { SignerBase } from "../../signer/types";
import { ProviderRpcError, ProviderRpcErrorCode, toProviderRpcError } from "../errors";
import type { MethodHandler, ProviderContext } from "../types";

/** Whether someone is signed in (after `init()`, so a stored session counts). */
export const isSignedIn = (signer: SignerBase): Promise<boolean> =>
  requireUser(signer).then(
    () => true,
    () => false,
  );

/** `eth_accounts`: `[smart account]` while signed in, `[]` otherwise. */
export const ethAccounts: MethodHandler = async (ctx) => {
  if (!(await isSignedIn(ctx.signer))) return [];
  try {
    return [await ctx.account()];
  } catch (error) {
    // Signed out meanwhile.
    if (toProviderRpcError(error).code === ProviderRpcErrorCode.UNAUTHORIZED) return [];
    throw error;
  }
};

/** `eth_coinbase`: the smart account while signed in, else null (never the node's coinbase). */
export const ethCoinbase: MethodHandler = async (ctx) => {
  const [account] = (await ethAccounts(ctx, [])) as Address[];
  return account ?? null;
};

// One sign-in prompt at a time per provider: concurrent requests share it.
const pendingPrompts = new WeakMap<ProviderContext, Promise<void>>();

async function promptSignIn(ctx: ProviderContext, prompt: () => Promise<void>): Promise<void> {
  let pending = pendingPrompts.get(ctx);
  if (!pending) {
    pending = prompt().finally(() => pendingPrompts.delete(ctx));
    pendingPrompts.set(ctx, pending);
  }
  try {
    await pending;
  } catch (error) {
    if (error instanceof ProviderRpcError) throw error;
    throw new ProviderRpcError(
      ProviderRpcErrorCode.USER_REJECTED,
      "The user rejected the request (no sign-in)",
      {
        cause: error,
      },
    );
  }
}

/**
 * `eth_requestAccounts`: the smart account; while signed out, the `requestAccounts` option (else the
 * signer's sign-in prompt: the modal of a mounted `<LatchkeyProvider>`) is awaited first, else 4100.
 */
export const ethRequestAccounts: MethodHandler = async (ctx) => {
  if (!(await isSignedIn(ctx.signer))) {
    // A misconfiguration (no chain, no RPC URL) fails here, before the sign-in modal opens.
    ctx.rpcUrl(ctx.chain());
    // The provider's own option, else the modal of a mounted <LatchkeyProvider> holding this signer.
    const prompt = ctx.options.requestAccounts ?? ctx.signer._internal.signInPrompt;
    if (!prompt) {
      throw new ProviderRpcError(
        ProviderRpcErrorCode.UNAUTHORIZED,
        "Nobody is signed in: sign in with Latchkey first, render <LatchkeyProvider signer={signer}> so connecting opens its modal, or give the provider a requestAccounts option",
      );
    }
    await promptSignIn(ctx, prompt);
    if (!(await isSignedIn(ctx.signer))) {
      throw new ProviderRpcError(
        ProviderRpcErrorCode.USER_REJECTED,
        "The user rejected the request (no sign-in)",
      );
    }
  }
  return [await ctx.account()];
};
