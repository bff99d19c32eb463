import type { ServiceContext } from "../context";
import { newMnemonic } from "../crypto/wallet";
import type { WalletAccountsTable } from "../db/schema";

/** An account of a sealed wallet: its `wallet_accounts` row without the owner and the time. */
export type SealedAccount = Omit<WalletAccountsTable, "wallet_id" | "org_id" | "created_at">;

/** A new wallet ready to store, not yet anyone's: the mnemonic and private keys sealed to their ids. */
export interface SealedWallet {
  id: string;
  sealedMnemonic: string;
  accounts: SealedAccount[];
}

/**
 * Makes a wallet: a fresh mnemonic, its accounts derived on the wallet threads, every secret sealed to
 * its row's id (`wallet:<id>`, `wallet_account:<id>`), so the rows can later move to an owner unchanged.
 */
export async function sealNewWallet(
  ctx: Pick<ServiceContext, "keyring" | "random" | "wallets">,
): Promise<SealedWallet> {
  const { keyring, random } = ctx;
  const mnemonic = newMnemonic();
  const id = random.uuid();
  const sealedMnemonic = keyring.seal(new TextEncoder().encode(mnemonic), `wallet:${id}`);
  const accounts = (await ctx.wallets.derive(mnemonic)).map((a): SealedAccount => {
    const accountId = random.uuid();
    const row = {
      id: accountId,
      curve: a.curve,
      path: a.path,
      address_format: a.addressFormat,
      address: a.address,
      address_key: a.addressFormat === "ADDRESS_FORMAT_ETHEREUM" ? a.address.toLowerCase() : a.address,
      public_key: a.publicKey,
      sealed_private_key: keyring.seal(a.privateKey, `wallet_account:${accountId}`),
    };
    a.privateKey.fill(0);
    return row;
  });
  return { id, sealedMnemonic, accounts };
}
