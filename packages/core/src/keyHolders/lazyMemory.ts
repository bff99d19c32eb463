import type { KeyHolder, SplitCustodyKeyHolder } from "./types";

async function custodyOf(get: () => Promise<KeyHolder>): Promise<SplitCustodyKeyHolder> {
  const custody = (await get()).custody;
  if (!custody) throw new Error("the memory key holder has no custody");
  return custody;
}

/**
 * The memory key holder for use without a window (Node, SSR), loaded on first use: a browser bundle of the
 * signer then never carries its HPKE and curve code (about 26 KB gzip).
 */
export function lazyMemoryKeyHolder(): KeyHolder {
  let inner: Promise<KeyHolder> | undefined;
  const get = () => {
    inner ??= import("./memory").then((m) => m.createMemoryKeyHolder());
    return inner;
  };
  return {
    kind: "memory",
    initTargetKey: async () => (await get()).initTargetKey(),
    getTargetPublicKey: async () => (await get()).getTargetPublicKey(),
    injectCredentialBundle: async (bundle) => (await get()).injectCredentialBundle(bundle),
    stamp: async (body) => (await get()).stamp(body),
    clear: async (options) => (await get()).clear(options),
    custody: {
      createSplitWallet: async (args) => (await custodyOf(get)).createSplitWallet(args),
      prepareSignInWallet: async (args) => {
        const custody = await custodyOf(get);
        if (!custody.prepareSignInWallet)
          throw new Error("the memory key holder cannot make a sign-in wallet");
        return custody.prepareSignInWallet(args);
      },
      keepSignInWallet: async (args) => (await custodyOf(get)).keepSignInWallet?.(args) ?? false,
      hasUserShare: async (args) => (await custodyOf(get)).hasUserShare(args),
      beginSplit: async (args) => (await custodyOf(get)).beginSplit(args),
      acceptSplitShare: async (args) => (await custodyOf(get)).acceptSplitShare(args),
      protectShare: async (args) => (await custodyOf(get)).protectShare(args),
      restoreShare: async (args) => (await custodyOf(get)).restoreShare(args),
      walletShares: async (args) => (await custodyOf(get)).walletShares?.(args) ?? [],
      importSplitWallet: async (args) => {
        const custody = await custodyOf(get);
        if (!custody.importSplitWallet) throw new Error("the memory key holder cannot import");
        return custody.importSplitWallet(args);
      },
    },
  };
}
