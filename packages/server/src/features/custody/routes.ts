import type {
  BeginSplitWalletResult,
  CompleteSplitWalletResult,
  CreateSplitWalletResult,
  SetRecoveryShareResult,
} from "@latchkey/protocol";
import { signerApi } from "@latchkey/protocol/schemas";
import { recoverySharesOf } from "../../custody/recoveryShares";
import { stampedRoute } from "../../http/route";
import { defineFeature } from "../defineFeature";

/**
 * Split custody (docs/split-custody.md): `/v1/create-split-wallet` (the wallet the user's key holder
 * made; its stamped request carries the user share), `/v1/begin-split-wallet` and
 * `/v1/complete-split-wallet` (a whole wallet moved to split, §3.1), `/v1/set-recovery-share` and
 * `/v1/get-recovery-shares` (the user share encrypted under a passkey's PRF output or a recovery code).
 */
export const custodyFeature = defineFeature({
  name: "custody",
  register(app, ctx) {
    stampedRoute(app, ctx, signerApi.createSplitWallet, async ({ submit }) => {
      const { result } = await submit();
      return result.createSplitWalletResult as CreateSplitWalletResult;
    });
    stampedRoute(app, ctx, signerApi.beginSplitWallet, async ({ submit }) => {
      const { result } = await submit();
      return result.beginSplitWalletResult as BeginSplitWalletResult;
    });
    stampedRoute(app, ctx, signerApi.completeSplitWallet, async ({ submit }) => {
      const { result } = await submit();
      return result.completeSplitWalletResult as CompleteSplitWalletResult;
    });
    stampedRoute(app, ctx, signerApi.setRecoveryShare, async ({ submit }) => {
      const { result } = await submit();
      return result.setRecoveryShareResult as SetRecoveryShareResult;
    });
    stampedRoute(app, ctx, signerApi.getRecoveryShares, async ({ caller }) => ({
      recoveryShares: await recoverySharesOf(ctx.db, caller.user.orgId),
    }));
  },
});
