import type { ServiceContext } from "../context";
import { type DerivedAccount, newMnemonic } from "../crypto/wallet";
import type { SealedAccount, SealedWallet } from "../db/schema";

/**
 * Makes a wallet: a fresh mnemonic, its accounts derived on the wallet threads, every secret sealed to
 * its row's id (`wallet:<id>`, `wallet_account:<id>`), so the rows can later move to an owner unchanged.
 */
export async function sealNewWallet(
  ctx: Pick<ServiceContext, "keyring" | "random" | "wallets">,
): Promise<SealedWallet> {
  return sealWalletOf(ctx, newMnemonic());
}

/** The wallet of `mnemonic` (a new one, or one a user imports), sealed as {@link sealNewWallet} seals. */
export async function sealWalletOf(
  ctx: Pick<ServiceContext, "keyring" | "random" | "wallets">,
  mnemonic: string,
): Promise<SealedWallet> {
  const { keyring, random } = ctx;
  const id = random.uuid();
  const sealedMnemonic = keyring.seal(new TextEncoder().encode(mnemonic), `wallet:${id}`);
  const accounts = (await ctx.wallets.derive(mnemonic)).map((a) => sealAccount(ctx, a));
  return { id, sealedMnemonic, accounts };
}

/** One derived account as its row, its private key sealed to the row's id (and wiped here). */
export function sealAccount(
  ctx: Pick<ServiceContext, "keyring" | "random">,
  a: DerivedAccount,
): SealedAccount {
  const accountId = ctx.random.uuid();
  const row = {
    id: accountId,
    curve: a.curve,
    path: a.path,
    address_format: a.addressFormat,
    address: a.address,
    address_key: a.addressFormat === "ADDRESS_FORMAT_ETHEREUM" ? a.address.toLowerCase() : a.address,
    public_key: a.publicKey,
    sealed_private_key: ctx.keyring.seal(a.privateKey, `wallet_account:${accountId}`),
  };
  a.privateKey.fill(0);
  return row;
}
