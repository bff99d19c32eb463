import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { wireTimestamp } from "../toActivity";
import { defineQuery } from "./defineQuery";

export const listWalletAccounts = defineQuery({
  name: "list_wallet_accounts",
  async run(ctx, { caller, body }) {
    const rows = await ctx.db
      .selectFrom("wallet_accounts")
      .select(["id", "wallet_id", "curve", "path", "address_format", "address", "public_key", "created_at"])
      .where("org_id", "=", caller.user.orgId)
      .where("wallet_id", "=", body.walletId)
      .orderBy("created_at")
      .execute();
    if (rows.length === 0) {
      throw apiError(ErrorCode.WALLET_NOT_FOUND, `No wallet ${body.walletId} in this organization`);
    }
    return {
      accounts: rows.map((a) => ({
        walletAccountId: a.id,
        organizationId: caller.user.orgId,
        walletId: a.wallet_id,
        curve: a.curve,
        pathFormat: "PATH_FORMAT_BIP32",
        path: a.path,
        addressFormat: a.address_format,
        address: a.address,
        publicKey: a.public_key,
        createdAt: wireTimestamp(a.created_at),
        updatedAt: wireTimestamp(a.created_at),
      })),
    };
  },
});
