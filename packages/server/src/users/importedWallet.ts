import type { ImportSecret, ImportSecretKind } from "@latchkey/protocol";
import { base58 } from "@scure/base";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import type { ServiceContext } from "../context";
import { type DerivedAccount, ed25519PublicKey, evmAddressFromPrivateKey } from "../crypto/wallet";
import type { Db } from "../db";
import type { SealedWallet } from "../db/schema";
import { sealAccount, sealWalletOf } from "./sealWallet";

/** BIP-39 with the English list: the words and the checksum (what `parseImportSecret` is given). */
export const isBip39Mnemonic = (mnemonic: string): boolean => validateMnemonic(mnemonic, wordlist);

/** The name an imported wallet gets (a new one is "Default wallet"). */
export const IMPORTED_WALLET_NAME = "Imported wallet";

/** A wallet made of what a user brought, sealed, with the kind it came from. */
export interface ImportedWallet extends SealedWallet {
  kind: ImportSecretKind;
}

/**
 * Seals an imported secret (already checked: `parseImportSecret`) as a wallet: a phrase as a wallet the
 * service would have made of it (its EVM account at m/44'/60'/0'/0/0, Solana at m/44'/501'/0'/0', derived
 * on the wallet threads); a key as a wallet of that one account, with no phrase (an empty
 * `sealedMnemonic`) and no path. Every secret is sealed to its row's id, as new wallets are.
 *
 * @example
 * const wallet = await sealImportedWallet(ctx, parseImportSecret("evm_private_key", pasted, isBip39Mnemonic));
 */
export async function sealImportedWallet(
  ctx: Pick<ServiceContext, "keyring" | "random" | "wallets">,
  secret: ImportSecret,
): Promise<ImportedWallet> {
  if (secret.kind === "mnemonic") return { ...(await sealWalletOf(ctx, secret.secret)), kind: secret.kind };
  const privateKey = new Uint8Array(Buffer.from(secret.secret, "hex"));
  let account: DerivedAccount;
  if (secret.kind === "evm_private_key") {
    const { address, publicKey } = evmAddressFromPrivateKey(privateKey);
    account = {
      curve: "CURVE_SECP256K1",
      path: "",
      addressFormat: "ADDRESS_FORMAT_ETHEREUM",
      address,
      publicKey,
      privateKey,
    };
  } else {
    const publicKey = ed25519PublicKey(privateKey);
    account = {
      curve: "CURVE_ED25519",
      path: "",
      addressFormat: "ADDRESS_FORMAT_SOLANA",
      address: base58.encode(publicKey),
      publicKey: Buffer.from(publicKey).toString("hex"),
      privateKey,
    };
  }
  return {
    id: ctx.random.uuid(),
    sealedMnemonic: "",
    accounts: [sealAccount(ctx, account)],
    kind: secret.kind,
  };
}

/** Stores `wallet` as one more wallet of the user (`org_id`), in `db` (the caller's transaction). */
export async function insertImportedWallet(
  db: Db,
  params: { wallet: ImportedWallet; userId: string; orgId: string; now: number },
): Promise<void> {
  const { wallet, userId, orgId, now } = params;
  await db
    .insertInto("wallets")
    .values({
      id: wallet.id,
      org_id: orgId,
      user_id: userId,
      name: IMPORTED_WALLET_NAME,
      sealed_mnemonic: wallet.sealedMnemonic,
      created_at: now,
      imported: wallet.kind,
    })
    .execute();
  await db
    .insertInto("wallet_accounts")
    .values(wallet.accounts.map((a) => ({ ...a, wallet_id: wallet.id, org_id: orgId, created_at: now })))
    .execute();
}
