import type { ShareHolder } from "@latchkey/keystore";
import type { KeyHolderStamp, SplitCustodyKeyHolder } from "./types";

/**
 * The split-custody half of an in-process key holder (memory, in-page WebCrypto), over a lazily made
 * keystore `ShareHolder`: `custody` for the holder, and `withUserShare` for its `stamp`. The share key is
 * learnt from the first custody call, so a service app's holder never loads the custody code.
 */
export function shareHolderCustody(shareHolder: () => Promise<ShareHolder>): {
  custody: SplitCustodyKeyHolder;
  withUserShare(body: string, stamp: KeyHolderStamp): Promise<KeyHolderStamp>;
} {
  let shareKey: string | undefined;
  return {
    async withUserShare(body, stamp) {
      const userShare = shareKey ? await (await shareHolder()).userShareFor(body, shareKey) : undefined;
      return userShare ? { ...stamp, userShare } : stamp;
    },
    custody: {
      async createSplitWallet(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).createSplitWallet(args);
      },
      async prepareSignInWallet(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).prepareSignInWallet(args);
      },
      async keepSignInWallet(args) {
        return (await shareHolder()).keepSignInWallet(args);
      },
      async hasUserShare(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).hasUserShare(args);
      },
      async beginSplit(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).beginSplit(args);
      },
      async acceptSplitShare(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).acceptSplitShare(args);
      },
      async protectShare(args) {
        return (await shareHolder()).protectShare(args);
      },
      async restoreShare(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).restoreShare(args);
      },
      async walletShares(args) {
        return (await shareHolder()).walletShares(args);
      },
      async importSplitWallet(args) {
        shareKey = args.shareKey;
        return (await shareHolder()).importSplitWallet(args);
      },
    },
  };
}
