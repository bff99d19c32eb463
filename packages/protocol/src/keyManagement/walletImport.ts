import { z } from "zod";
import { idSchema, textSchema } from "../common";
import { stepUpProofFields } from "./stepUpProof";

/** A public account of a split wallet, as the key holder derived it (`PublicAccount` of protocol/custody). */
export const publicAccountSchema = z.object({
  curve: z.enum(["CURVE_SECP256K1", "CURVE_ED25519"]),
  path: textSchema(64),
  addressFormat: z.enum(["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"]),
  address: textSchema(128),
  publicKey: z.string().regex(/^[0-9a-fA-F]{64,130}$/, "must be a public key in hex"),
});

/**
 * `init_import_wallet`: a fresh import key for one wallet import (single use, for `IMPORT_KEY_TTL_MS`),
 * answered as an import bundle signed by the service's import-signing key, which the import frame
 * (`/frames/import`) pins. The frame checks it and seals the secret the user types to that key.
 */
export const initImportWalletParametersSchema = z.object({
  userId: idSchema(128),
});

/** What `init_import_wallet` answers (`initImportWalletResult`). */
export interface InitImportWalletResult {
  /** JSON of {@link ImportBundle}. */
  importBundle: string;
}

/**
 * `import_wallet`: the user's recovery phrase or private key, sealed by the import frame to an import key
 * from `init_import_wallet` (`encryptedBundle`, JSON of `EncryptedImportBundle`). The imported accounts
 * become the ones the app uses: a phrase brings an EVM and a Solana account (m/44'/60'/0'/0/0,
 * m/44'/501'/0'/0'), a key the account of its chain; the user's earlier wallet stays theirs, no longer
 * shown. Needs a fresh sign-in (step-up, `stepUpProofFields`), as `export_wallet` does; the key is spent.
 */
export const importWalletParametersSchema = z.object({
  userId: idSchema(128),
  encryptedBundle: textSchema(16_384).pipe(z.string().min(2)),
  /**
   * Split custody (docs/split-custody.md §5, Import): the imported wallet's public accounts as the import
   * frame derived them, in the wallet secret's order. Required when the user's wallet is split (the
   * bundle then holds only the service's share, the request's `X-User-Share` the user's); refused
   * otherwise.
   */
  accounts: z.array(publicAccountSchema).min(1).max(2).optional(),
  ...stepUpProofFields,
});

/** What `import_wallet` answers (`importWalletResult`): the new wallet and the accounts the app now uses. */
export interface ImportWalletResult {
  walletId: string;
  kind: "mnemonic" | "evm_private_key" | "solana_private_key";
  /** The EVM address in use after the import (the imported one, or the earlier one for a Solana key). */
  address: string;
  /** The Solana address in use after the import (the imported one, or the earlier one for an EVM key). */
  solanaAddress: string;
  /** The addresses the import brought: two for a phrase, one for a key. */
  importedAddresses: string[];
}
